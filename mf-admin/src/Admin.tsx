import { useNavigate } from 'react-router-dom';
import { Button, Page, PageTitle, signOutWithToast } from '@repex/shared-ui';

export default function Admin() {
  const navigate = useNavigate();
  const signOut = async () => {
    if (await signOutWithToast('admin')) navigate('/nra/login');
  };
  return (
    <Page data-remote="admin" data-build={__BUILD_ID__}>
      <PageTitle>Admin Dashboard</PageTitle>
      <Button $variant="outline" onClick={signOut}>
        Sign Out
      </Button>
    </Page>
  );
}
