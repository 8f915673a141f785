import { Page, PageTitle } from '@repex/shared-ui';

export default function Dashboard() {
  return (
    <Page data-remote="portfolio" data-build={__BUILD_ID__}>
      <PageTitle>Dashboard</PageTitle>
    </Page>
  );
}
