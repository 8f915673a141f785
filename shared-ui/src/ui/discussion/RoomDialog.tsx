import { useState } from 'react';
import { FormDialog } from '../primitives/FormDialog';
import { Muted } from '../primitives/States';
import { TextField } from '../primitives/Dialog';

/** The token's person opens their holders' room, or changes who may enter it. */
export function RoomDialog({
  current,
  open,
  onClose,
}: {
  current: number | null;
  open: (minTokens: number | null) => Promise<string | null>;
  onClose: () => void;
}) {
  const [min, setMin] = useState(current === null ? '' : String(current));
  return (
    <FormDialog
      title={current === null ? "Open a Holders' Room" : "Holders' Room"}
      submitLabel={current === null ? 'Open Room' : 'Save'}
      busyLabel="Saving…"
      send={() => open(/^\s*\d+\s*$/.test(min) ? Number(min) : null)}
      onClose={onClose}
    >
      <Muted>
        Only people holding at least this many of your tokens read and write in the room. Anyone who sells below it
        loses access at once. You may hide replies there.
      </Muted>
      <TextField id="room-min" label="Minimum tokens held" inputMode="numeric" value={min} onValue={setMin} autoFocus />
    </FormDialog>
  );
}
