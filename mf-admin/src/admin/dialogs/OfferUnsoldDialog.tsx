import { useState } from 'react';
import { Muted, TextField } from '@repex/shared-ui/ui';
import { rpc } from '../rpc';
import type { OwnToken } from '../types';
import { ActionDialog } from './ActionDialog';

/**
 * Offers again, by a new batch auction, what a token's offering left with the issuance account
 * (admin_offer_unsold): the settings' window and cap, the lowest bid typed here or the last price.
 * The database refuses it in words when nothing is left, an offering is open or trading is halted.
 */
export function OfferUnsoldDialog({
  token,
  onClose,
  onDone,
}: {
  token: OwnToken;
  onClose: () => void;
  onDone: () => void;
}) {
  const [price, setPrice] = useState('');
  return (
    <ActionDialog
      title={`Offer Unsold ${token.name}`}
      submitLabel="Open the Offering"
      onClose={onClose}
      onDone={onDone}
      run={() => {
        const p = price.trim() ? Number(price) : null;
        if (Number.isNaN(p)) throw new Error('Write the lowest bid as a plain number, like 12.50.');
        return rpc('admin_offer_unsold', { p_token: token.id, p_price: p });
      }}
      success={{
        title: 'Offering Opened',
        description: `${token.name}'s unsold tokens are offered by auction; trading waits for its close.`,
      }}
    >
      <Muted>
        What the issuance account still holds of {token.name} is offered by a new batch auction, under the same rules as
        its launch. Trading in {token.name} waits for its close; resting orders stay on the book and may be cancelled.
      </Muted>
      <TextField
        id="offer-price"
        label="Lowest bid (USD)"
        hint="Left empty, the last price."
        inputMode="decimal"
        value={price}
        onValue={setPrice}
      />
    </ActionDialog>
  );
}
