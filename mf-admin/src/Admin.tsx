import { Page, PageTitle } from '@repex/shared-ui';

export default function Admin() {
  return (
    <Page data-remote="admin" data-build={__BUILD_ID__}>
      <PageTitle>Admin</PageTitle>
    </Page>
  );
}
