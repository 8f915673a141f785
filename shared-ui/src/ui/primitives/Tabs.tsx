import * as TabsPrimitive from '@radix-ui/react-tabs';
import styled from 'styled-components';
import { media } from '../theme';

/** Accessible tabs (arrow keys, roving focus) from Radix, in our look. */
export const Tabs = TabsPrimitive.Root;

export const TabsList = styled(TabsPrimitive.List)`
  display: inline-flex;
  gap: 4px;
  padding: 4px;
  margin-bottom: 16px;
  border-radius: ${({ theme }) => theme.radius.md};
  background: ${({ theme }) => theme.colors.surfaceRaised};
  max-width: 100%;
  /* Labels wrap onto a second line rather than being cut or scrolled out of sight. */
  flex-wrap: wrap;
`;

export const TabsTrigger = styled(TabsPrimitive.Trigger)`
  border: 0;
  padding: 8px 14px;
  border-radius: ${({ theme }) => theme.radius.sm};
  background: transparent;
  color: ${({ theme }) => theme.colors.muted};
  font-weight: 600;
  cursor: pointer;
  white-space: nowrap;
  /* Tighter on phones, so a card's three tabs fit on one line. */
  ${media.phone} {
    padding: 8px 8px;
    font-size: 14px;
  }
  &[data-state='active'] {
    background: ${({ theme }) => theme.colors.bg};
    color: ${({ theme }) => theme.colors.text};
  }
`;

export const TabsContent = styled(TabsPrimitive.Content)`
  outline: none;
`;
