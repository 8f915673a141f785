import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import styled from 'styled-components';
import { signOutWithToast, useQuery } from '@repex/shared-ui/platform';
import {
  Button,
  Card,
  CardGrid,
  ErrorState,
  Logo,
  Muted,
  Page,
  PageTitle,
  StatCard,
  Tabs,
  TabsContent,
  TabsList,
  TabsTrigger,
  formatInteger,
  formatMoney,
  formatCount,
} from '@repex/shared-ui/ui';
import { AuditLog } from './admin/AuditLog';
import { Fraud } from './admin/Fraud';
import { Reports } from './admin/Reports';
import { Revenue } from './admin/Revenue';
import { SettingsForm } from './admin/Settings';
import { rpc } from './admin/rpc';
import { Users } from './admin/Users';

const Header = styled.header`
  display: flex;
  align-items: center;
  justify-content: space-between;
  gap: 16px;
  flex-wrap: wrap;
`;
const Brand = styled.div`
  display: flex;
  align-items: center;
  gap: 16px;
  flex-wrap: wrap;
  a {
    color: inherit;
    text-decoration: none;
  }
`;

/** Spec section 2, Admin dashboard. Every figure comes from admin-only database functions. */
export default function Admin() {
  const navigate = useNavigate();
  const [version, setVersion] = useState(0);
  const stats = useQuery(() => rpc('admin_dashboard_stats'), [version]);
  const s = stats.data;
  const changed = () => setVersion((v) => v + 1);

  const signOut = async () => {
    if (await signOutWithToast('admin')) navigate('/nra/login');
  };

  return (
    <Page data-remote="admin">
      <Header>
        <Brand>
          <Link to="/dashboard">
            <Logo />
          </Link>
          <div>
            <PageTitle>Admin Dashboard</PageTitle>
            <Muted>
              RepX operations · <Link to="/market">Back to the market</Link>
            </Muted>
          </div>
        </Brand>
        <Button $variant="outline" onClick={signOut}>
          Sign Out
        </Button>
      </Header>
      {stats.error && !s && (
        <ErrorState title="The figures could not be loaded." message={stats.error.message} onRetry={stats.reload} />
      )}
      <CardGrid>
        <StatCard
          label="Total Users"
          value={s && formatInteger(s.total_users)}
          hint={
            s &&
            `${formatInteger(s.suspended_users)} suspended · ${formatCount(s.pending_applications, 'token application')}`
          }
        />
        <StatCard
          label="Fraud Alerts"
          value={s && formatInteger(s.fraud_alerts)}
          hint="Open alerts from the fraud rules"
        />
        <StatCard
          label="Daily Volume"
          value={s && formatMoney(s.daily_volume)}
          hint={s && formatCount(s.trades_24h, 'trade')}
        />
        <StatCard
          label="Revenue (24h)"
          value={s && formatMoney(s.revenue_24h)}
          hint="Fees on both sides, less the creators' share"
        />
      </CardGrid>
      <Card>
        <Tabs defaultValue="users">
          <TabsList>
            <TabsTrigger value="users">User Management</TabsTrigger>
            <TabsTrigger value="fraud">Fraud Detection</TabsTrigger>
            <TabsTrigger value="reports">Post Reports</TabsTrigger>
            <TabsTrigger value="revenue">Revenue Reports</TabsTrigger>
            <TabsTrigger value="settings">System Settings</TabsTrigger>
            <TabsTrigger value="audit">Audit Log</TabsTrigger>
          </TabsList>
          <TabsContent value="users">
            <Users version={version} onChanged={changed} />
          </TabsContent>
          <TabsContent value="fraud">
            <Fraud version={version} onChanged={changed} />
          </TabsContent>
          <TabsContent value="reports">
            <Reports version={version} onChanged={changed} />
          </TabsContent>
          <TabsContent value="revenue">
            <Revenue />
          </TabsContent>
          <TabsContent value="settings">
            <SettingsForm onSaved={changed} />
          </TabsContent>
          <TabsContent value="audit">
            <AuditLog version={version} />
          </TabsContent>
        </Tabs>
      </Card>
    </Page>
  );
}
