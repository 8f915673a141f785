import styled from 'styled-components';
import { Muted } from '../primitives/States';
import { orderTerms, type ListedOrder } from './orderTerms';

// A note wraps within a narrow column, so a phone's table keeps its price in view.
const Note = styled(Muted)`
  display: block;
  font-size: 12px;
  white-space: normal;
  min-width: 8em;
  max-width: 12em;
  margin-left: auto;
`;

/** An order's price cell: its limit, or a stop's trigger, with what else its terms say beneath. */
export function OrderPrice({ order }: { order: ListedOrder }) {
  const { price, note } = orderTerms(order);
  return (
    <>
      {price}
      {note && <Note>{note}</Note>}
    </>
  );
}
