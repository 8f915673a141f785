import { Page, PageTitle } from '@repex/shared-ui';

export default function Profile() {
  return (
    <Page data-remote="portfolio" data-build={__BUILD_ID__}>
      <PageTitle>Profile</PageTitle>
    </Page>
  );
}
