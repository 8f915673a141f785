import { useState } from 'react';
import styled from 'styled-components';
import type { InvestPlan } from '@repex/shared-ui/contracts';
import { toast } from '@repex/shared-ui/platform';
import { Badge, Button, FormDialog, Muted, formatDay, formatPrice, media } from '@repex/shared-ui/ui';
import type { PlanTerms } from './data';
import { PlanDialog } from './PlanDialog';
import { scheduleWords, targetWords } from './schedule';

const Rows = styled.ul`
  list-style: none;
  margin: 0;
  padding: 0;
`;
const Row = styled.li`
  display: grid;
  grid-template-columns: minmax(0, 1fr) auto;
  gap: 8px 16px;
  align-items: center;
  padding: 14px 0;
  border-bottom: 1px solid ${({ theme }) => theme.colors.border};
  ${media.phone} {
    grid-template-columns: minmax(0, 1fr);
  }
`;
const Title = styled.div`
  display: flex;
  flex-wrap: wrap;
  align-items: center;
  gap: 8px;
  font-weight: 600;
`;
const Lines = styled.div`
  display: flex;
  flex-direction: column;
  gap: 4px;
  font-size: 14px;
`;
const Actions = styled.div`
  display: flex;
  flex-wrap: wrap;
  gap: 8px;
  ${media.phone} {
    > * {
      flex: 1;
    }
  }
`;

const lastRun = (p: InvestPlan) => {
  if (!p.last_period) return null;
  const when = formatDay(p.last_period);
  if (p.last_status === 'skipped') return `Last run ${when}: skipped. ${p.last_reason ?? ''}`;
  const spent = `spent ${formatPrice(p.last_spent ?? 0)}`;
  return p.last_status === 'partial'
    ? `Last run ${when}: ${spent}; part did not buy. ${p.last_reason ?? ''}`
    : `Last run ${when}: bought, ${spent}.`;
};

/** The user's plans: each with its schedule, its next and last run, and Pause/Resume, Edit, Delete. */
export function PlanList({
  plans,
  update,
  setPaused,
  remove,
}: {
  plans: InvestPlan[];
  update: (id: number, terms: PlanTerms) => Promise<void>;
  setPaused: (id: number, paused: boolean) => Promise<void>;
  remove: (id: number) => Promise<void>;
}) {
  const [editing, setEditing] = useState<InvestPlan>();
  const [deleting, setDeleting] = useState<InvestPlan>();
  const pause = async (p: InvestPlan) => {
    try {
      await setPaused(p.id, !p.paused);
      toast({
        title: p.paused ? 'Plan Resumed' : 'Plan Paused',
        description: `${formatPrice(p.amount)} of ${targetWords(p)}`,
      });
    } catch (error) {
      toast({ title: 'The plan did not change', description: (error as Error).message, variant: 'destructive' });
    }
  };
  return (
    <>
      <Rows aria-label="Your plans">
        {plans.map((p) => (
          <Row key={p.id} data-plan={p.id}>
            <Lines>
              <Title>
                {formatPrice(p.amount)} of {targetWords(p)}
                <Badge $variant={p.paused ? 'secondary' : 'up'}>{p.paused ? 'Paused' : 'Active'}</Badge>
              </Title>
              <Muted>
                {scheduleWords(p)}
                {p.paused ? '' : ` · next run ${formatDay(p.next_run_on)} (UTC)`}
              </Muted>
              {lastRun(p) && <span>{lastRun(p)}</span>}
            </Lines>
            <Actions>
              <Button $variant="outline" $size="sm" onClick={() => void pause(p)}>
                {p.paused ? 'Resume' : 'Pause'}
              </Button>
              <Button $variant="outline" $size="sm" onClick={() => setEditing(p)}>
                Edit
              </Button>
              <Button $variant="outline" $size="sm" onClick={() => setDeleting(p)}>
                Delete
              </Button>
            </Actions>
          </Row>
        ))}
      </Rows>
      {editing && (
        <PlanDialog plan={editing} save={(terms) => update(editing.id, terms)} onClose={() => setEditing(undefined)} />
      )}
      {deleting && (
        <FormDialog
          title="Delete Plan"
          submitLabel="Delete Plan"
          busyLabel="Deleting..."
          destructive
          onClose={() => setDeleting(undefined)}
          send={async () => {
            await remove(deleting.id);
            return null;
          }}
        >
          <p>
            Delete the plan buying {formatPrice(deleting.amount)} of {targetWords(deleting)}? Its run history goes with
            it; the tokens it bought stay yours.
          </p>
        </FormDialog>
      )}
    </>
  );
}
