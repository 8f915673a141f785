import { Link } from 'react-router';
import styled from 'styled-components';
import { useAppStore } from '@repex/shared-ui/platform';
import { Button, Logo, Muted, Page, PageTitle } from '@repex/shared-ui/ui';

const Header = styled.header`
  padding: 14px 20px;
  border-bottom: 1px solid ${({ theme }) => theme.colors.border};
  a {
    color: inherit;
    text-decoration: none;
  }
`;

/** Any other address; if some remote's routes could not be read, the page may be one of theirs. */
export function NotFound({ unavailable }: { unavailable: string[] }) {
  const signedIn = useAppStore((s) => !!s.session);
  return (
    <>
      {/* Signed in, the navigation bar is above; signed out, the logo leads home. */}
      {!signedIn && (
        <Header>
          <Link to="/">
            <Logo />
          </Link>
        </Header>
      )}
      {unavailable.length ? <PartUnavailable remotes={unavailable} /> : <NotFoundBody />}
    </>
  );
}

function PartUnavailable({ remotes }: { remotes: string[] }) {
  return (
    <Page data-testid="remote-error" style={{ alignItems: 'center', textAlign: 'center', paddingTop: 96 }}>
      <PageTitle>This page could not be loaded</PageTitle>
      <Muted>
        Part of RepX ({remotes.join(', ')}) is not responding, and this page may belong to it. The rest of the app still
        works; try again in a moment.
      </Muted>
      <Button onClick={() => window.location.reload()}>Retry</Button>
    </Page>
  );
}

function NotFoundBody() {
  return (
    <Page style={{ alignItems: 'center', textAlign: 'center', paddingTop: 96 }}>
      <PageTitle>Page not found</PageTitle>
      <Muted>There is nothing at this address. It may have moved, or the link may be wrong.</Muted>
      <Button as={Link} to="/">
        Go to the home page
      </Button>
    </Page>
  );
}
