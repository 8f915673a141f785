import { Page, PageTitle } from '@repex/shared-ui';

export default function Market() {
  return (
    <Page data-remote="market" data-build={__BUILD_ID__}>
      <PageTitle>Market</PageTitle>
    </Page>
  );
}
