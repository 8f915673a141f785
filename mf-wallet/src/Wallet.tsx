import { Page, PageTitle } from '@repex/shared-ui';

export default function Wallet() {
  return (
    <Page data-remote="wallet" data-build={__BUILD_ID__}>
      <PageTitle>Wallet</PageTitle>
    </Page>
  );
}
