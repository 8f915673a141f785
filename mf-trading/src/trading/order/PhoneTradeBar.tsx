import { Button } from '@repex/shared-ui/ui';
import type { Side } from './orderMath';
import { PhoneTradeBarSpace, PhoneTradeBar as Bar } from '../Trading.styles';

/** On a phone, Buy and Sell at the foot of the screen: a tap sets the panel's side and brings it into view. */
export function PhoneTradeBar({ name, onSide }: { name: string; onSide: (side: Side) => void }) {
  return (
    <>
      <PhoneTradeBarSpace />
      <Bar role="group" aria-label="Trade" data-trade-bar>
        <Button $size="lg" aria-label={`Buy ${name}`} onClick={() => onSide('buy')}>
          Buy
        </Button>
        <Button $size="lg" $variant="destructive" aria-label={`Sell ${name}`} onClick={() => onSide('sell')}>
          Sell
        </Button>
      </Bar>
    </>
  );
}
