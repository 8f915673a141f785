import { useEffect, useRef, useState } from 'react';
import { useNavigate } from 'react-router';
import styled from 'styled-components';
import { Button, Muted, formatDate, formatInteger, formatTime, media } from '@repex/shared-ui/ui';
import type { Notices } from './useNotices';

const Wrap = styled.div`
  position: relative;
  ${media.phone} {
    margin-left: auto;
  }
`;
const Count = styled.span`
  position: absolute;
  top: -2px;
  right: -2px;
  min-width: 18px;
  height: 18px;
  padding: 0 5px;
  border-radius: 9px;
  background: ${({ theme }) => theme.colors.down};
  color: #fff;
  font-size: 11px;
  font-weight: 700;
  line-height: 18px;
  text-align: center;
`;
const Panel = styled.div`
  position: absolute;
  right: 0;
  top: 44px;
  width: 380px;
  max-height: min(70vh, 560px);
  overflow-y: auto;
  background: ${({ theme }) => theme.colors.surface};
  border: 1px solid ${({ theme }) => theme.colors.border};
  border-radius: ${({ theme }) => theme.radius.md};
  box-shadow: 0 12px 32px rgba(0, 0, 0, 0.45);
  z-index: 60;
  ${media.phone} {
    position: fixed;
    left: 8px;
    right: 8px;
    top: 64px;
    width: auto;
  }
`;
const PanelHead = styled.div`
  display: flex;
  align-items: center;
  justify-content: space-between;
  gap: 8px;
  padding: 12px 14px;
  border-bottom: 1px solid ${({ theme }) => theme.colors.border};
`;
const Item = styled.button<{ $unread: boolean }>`
  display: block;
  width: 100%;
  text-align: left;
  padding: 10px 14px;
  border: 0;
  border-bottom: 1px solid ${({ theme }) => theme.colors.border};
  background: ${({ $unread }) => ($unread ? 'rgba(99, 102, 241, 0.10)' : 'transparent')};
  color: inherit;
  font: inherit;
  cursor: pointer;
  strong {
    display: block;
    font-size: 14px;
  }
  span {
    display: block;
    font-size: 13px;
    margin-top: 2px;
    overflow-wrap: anywhere;
  }
  &:hover {
    background: ${({ theme }) => theme.colors.surfaceRaised};
  }
`;

/** The bell: the unread count, and the latest notices, each leading to its screen. */
export function Bell({ notices }: { notices: Notices }) {
  const [open, setOpen] = useState(false);
  const navigate = useNavigate();
  const wrap = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!open) return;
    const away = (e: MouseEvent) => !wrap.current?.contains(e.target as Node) && setOpen(false);
    const esc = (e: KeyboardEvent) => e.key === 'Escape' && setOpen(false);
    document.addEventListener('mousedown', away);
    document.addEventListener('keydown', esc);
    return () => {
      document.removeEventListener('mousedown', away);
      document.removeEventListener('keydown', esc);
    };
  }, [open]);
  const go = (to: string) => {
    setOpen(false);
    navigate(to);
  };
  const { items, unread } = notices;
  return (
    <Wrap ref={wrap}>
      <Button
        $variant="ghost"
        $size="icon"
        aria-label={unread ? `Notifications, ${formatInteger(unread)} unread` : 'Notifications'}
        aria-expanded={open}
        aria-controls="notices"
        onClick={() => setOpen((o) => !o)}
      >
        <svg
          width="20"
          height="20"
          viewBox="0 0 24 24"
          fill="none"
          stroke="currentColor"
          strokeWidth="2"
          aria-hidden="true"
        >
          <path d="M18 8a6 6 0 1 0-12 0c0 7-3 9-3 9h18s-3-2-3-9" />
          <path d="M13.73 21a2 2 0 0 1-3.46 0" />
        </svg>
        {unread > 0 && <Count aria-hidden="true">{unread > 99 ? '99+' : unread}</Count>}
      </Button>
      {open && (
        <Panel id="notices" role="region" aria-label="Your notifications">
          <PanelHead>
            <strong>Notifications</strong>
            <span>
              <Button $variant="link" $size="sm" disabled={!unread} onClick={() => void notices.read()}>
                Mark all read
              </Button>{' '}
              <Button $variant="link" $size="sm" onClick={() => go('/profile?open=notifications')}>
                Settings
              </Button>
            </span>
          </PanelHead>
          {items.length === 0 ? (
            <Muted as="p" style={{ padding: 14 }}>
              Nothing yet. Fills, alerts, replies and security notices appear here.
            </Muted>
          ) : (
            items.map((n) => (
              <Item
                key={n.id}
                $unread={!n.read_at}
                aria-label={`${n.read_at ? '' : 'Unread: '}${n.title}`}
                onClick={() => {
                  if (!n.read_at) void notices.read(n.id);
                  if (n.link) go(n.link);
                }}
              >
                <strong>{n.title}</strong>
                <span>{n.body}</span>
                <Muted as="span">
                  {formatDate(n.created_at)} {formatTime(n.created_at)}
                </Muted>
              </Item>
            ))
          )}
          {notices.older && (
            <Button $variant="link" $size="sm" style={{ margin: 10 }} onClick={() => void notices.more()}>
              Show older notices
            </Button>
          )}
        </Panel>
      )}
    </Wrap>
  );
}
