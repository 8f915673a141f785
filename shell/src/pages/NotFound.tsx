import { Link } from 'react-router-dom';
import { Button, Muted, Page, PageTitle } from '@repex/shared-ui';

export function NotFound() {
  return (
    <Page style={{ alignItems: 'center', textAlign: 'center', paddingTop: 96 }}>
      <PageTitle>Page not found</PageTitle>
      <Muted>There is nothing at this address. It may have moved, or the link may be wrong.</Muted>
      <Link to="/">
        <Button>Go to the home page</Button>
      </Link>
    </Page>
  );
}
