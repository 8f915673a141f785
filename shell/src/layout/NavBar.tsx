import { useState, type ReactNode } from 'react';
import { Link, NavLink, useNavigate } from 'react-router';
import styled from 'styled-components';
import { signOutWithToast } from '@repex/shared-ui/platform';
import { Button, Logo, media } from '@repex/shared-ui/ui';

const Bar = styled.header`
  position: sticky;
  top: 0;
  z-index: 50;
  background: rgba(11, 15, 26, 0.92);
  backdrop-filter: blur(8px);
  border-bottom: 1px solid ${({ theme }) => theme.colors.border};
`;
const Inner = styled.nav`
  max-width: 1200px;
  margin: 0 auto;
  height: 64px;
  padding: 0 20px;
  display: flex;
  align-items: center;
  gap: 24px;
`;
const Links = styled.div<{ $open: boolean }>`
  display: flex;
  align-items: center;
  gap: 4px;
  flex: 1;
  ${media.phone} {
    display: ${({ $open }) => ($open ? 'flex' : 'none')};
    position: absolute;
    top: 64px;
    left: 0;
    right: 0;
    flex-direction: column;
    align-items: stretch;
    padding: 12px 20px 20px;
    background: ${({ theme }) => theme.colors.bg};
    border-bottom: 1px solid ${({ theme }) => theme.colors.border};
  }
`;
const Item = styled(NavLink)`
  padding: 8px 12px;
  border-radius: ${({ theme }) => theme.radius.sm};
  color: ${({ theme }) => theme.colors.muted};
  font-weight: 600;
  &.active,
  &:hover {
    color: ${({ theme }) => theme.colors.text};
    background: ${({ theme }) => theme.colors.surfaceRaised};
  }
`;
const SignOutSlot = styled.div`
  margin-left: auto;
  ${media.phone} {
    margin: 8px 0 0;
  }
`;
const MenuToggle = styled(Button)`
  display: none;
  ${media.phone} {
    display: inline-flex;
  }
`;

/** Spec section 2, Navigation: shown only when signed in; its links are the remotes' own. */
export function NavBar({ links, bell }: { links: { to: string; label: string }[]; bell?: ReactNode }) {
  const [open, setOpen] = useState(false);
  const navigate = useNavigate();
  const close = () => setOpen(false);

  const signOut = async () => {
    close();
    if (await signOutWithToast('user')) navigate('/auth');
  };

  return (
    <Bar>
      <Inner aria-label="Main">
        <Link to="/dashboard" onClick={close}>
          <Logo />
        </Link>
        <Links id="main-menu" $open={open}>
          {links.map((l) => (
            <Item key={l.to} to={l.to} onClick={close}>
              {l.label}
            </Item>
          ))}
          <SignOutSlot>
            <Button $variant="outline" $size="sm" onClick={signOut}>
              Sign Out
            </Button>
          </SignOutSlot>
        </Links>
        {bell}
        <MenuToggle
          $variant="ghost"
          $size="icon"
          aria-label={open ? 'Close menu' : 'Open menu'}
          aria-expanded={open}
          aria-controls="main-menu"
          onClick={() => setOpen((o) => !o)}
        >
          {open ? '✕' : '☰'}
        </MenuToggle>
      </Inner>
    </Bar>
  );
}
