import styled from 'styled-components';
import { Muted } from '../primitives/States';
import { orderTerms, type ListedOrder } from './orderTerms';

const Note = styled(Muted)`
  display: block;
  font-size: 12px;
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
