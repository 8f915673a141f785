import { useState } from 'react';
import styled from 'styled-components';
import { Button, Dialog, DialogActions, Muted } from '@repex/shared-ui/ui';

const KeyBox = styled.code`
  display: block;
  padding: 12px;
  border-radius: 8px;
  border: 1px solid ${({ theme }) => theme.colors.border};
  background: ${({ theme }) => theme.colors.bg};
  font-size: 13px;
  overflow-wrap: anywhere;
  user-select: all;
`;

/** A new API key, shown this once: RepX keeps only its hash. */
export function NewKeyShown({ made, onDone }: { made: { key: string; name: string }; onDone: () => void }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(made.key);
      setCopied(true);
    } catch {
      setCopied(false);
    }
  };
  return (
    <Dialog title="Your New API Key" onClose={onDone}>
      <p style={{ margin: 0 }}>
        &ldquo;{made.name}&rdquo; is ready. Copy the key now and keep it secret: RepX keeps only a fingerprint of it and
        cannot show it again.
      </p>
      <KeyBox aria-label="New API key">{made.key}</KeyBox>
      <Muted>
        Send it as <code>Authorization: Bearer</code> with the anon key as <code>apikey</code> (docs/api.md).
      </Muted>
      <DialogActions>
        <Button $variant="outline" onClick={() => void copy()}>
          {copied ? 'Copied' : 'Copy Key'}
        </Button>
        <Button onClick={onDone}>Done</Button>
      </DialogActions>
    </Dialog>
  );
}
