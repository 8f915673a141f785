import { useState, type FormEvent } from 'react';
import styled from 'styled-components';
import { Button, Field, FormError, Input, media } from '@repex/shared-ui/ui';
import type { DayRange } from './data';

const Form = styled.form`
  display: flex;
  flex-wrap: wrap;
  align-items: flex-end;
  gap: 12px;
  & > div {
    margin: 0;
  }
  ${media.phone} {
    & > div {
      flex: 1 1 140px;
    }
  }
`;

/**
 * A custom period's first and last UTC days, shown with Apply; `refusal` is the database's word on
 * the dates applied. The drafts start from the address's dates each time they change there.
 */
export function CustomRange({
  range,
  refusal,
  onApply,
}: {
  range: DayRange;
  refusal?: string;
  onApply: (next: DayRange) => void;
}) {
  const [from, setFrom] = useState(range.from);
  const [to, setTo] = useState(range.to);
  const today = new Date().toISOString().slice(0, 10);
  const apply = (e: FormEvent) => {
    e.preventDefault();
    onApply({ from, to });
  };
  return (
    <>
      <Form onSubmit={apply} aria-label="Custom period">
        <Field label="First day" htmlFor="analysis-from">
          <Input id="analysis-from" type="date" max={today} value={from} onChange={(e) => setFrom(e.target.value)} />
        </Field>
        <Field label="Last day" htmlFor="analysis-to">
          <Input id="analysis-to" type="date" max={today} value={to} onChange={(e) => setTo(e.target.value)} />
        </Field>
        <Button type="submit" $variant="outline">
          Apply
        </Button>
      </Form>
      {refusal && <FormError>{refusal}</FormError>}
    </>
  );
}
