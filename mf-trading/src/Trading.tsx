import { Page, PageTitle } from '@repex/shared-ui';

export default function Trading() {
  return (
    <Page data-remote="trading" data-build={__BUILD_ID__}>
      <PageTitle>Trading</PageTitle>
    </Page>
  );
}
