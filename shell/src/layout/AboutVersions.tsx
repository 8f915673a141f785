import { useState } from 'react';
import styled from 'styled-components';
import { Button, Dialog, DialogActions, Muted } from '@repex/shared-ui/ui';

/** A quiet line at the page's end: for support, not for the eye. */
const Footer = styled.footer`
  display: flex;
  justify-content: center;
  padding: 16px 16px 24px;
  button {
    font-size: 12px;
    font-weight: 400;
    /* Muted, not faded: the muted colour still reads at AA contrast on the page. */
    color: ${({ theme }) => theme.colors.muted};
  }
`;
const Builds = styled.dl`
  margin: 0;
  display: grid;
  grid-template-columns: auto minmax(0, 1fr);
  gap: 6px 16px;
  font-size: 14px;
  dd {
    margin: 0;
    font-family: ui-monospace, monospace;
    overflow-wrap: anywhere;
  }
`;

/** For support: which build of the shell and of each remote this page runs. */
export function AboutVersions({ builds }: { builds: Record<string, string> }) {
  const [open, setOpen] = useState(false);
  return (
    <Footer>
      <Button $variant="ghost" $size="sm" onClick={() => setOpen(true)}>
        About this version
      </Button>
      {open && (
        <Dialog title="About this version" onClose={() => setOpen(false)}>
          <Muted>The builds this page runs, for support.</Muted>
          <Builds data-testid="builds">
            <dt>shell</dt>
            <dd>{__BUILD_ID__}</dd>
            {Object.entries(builds).map(([remote, build]) => (
              <BuildRow key={remote} remote={remote} build={build} />
            ))}
          </Builds>
          <DialogActions>
            <Button type="button" $variant="outline" onClick={() => setOpen(false)}>
              Close
            </Button>
          </DialogActions>
        </Dialog>
      )}
    </Footer>
  );
}

const BuildRow = ({ remote, build }: { remote: string; build: string }) => (
  <>
    <dt>{remote}</dt>
    <dd data-remote-build={remote}>{build}</dd>
  </>
);
