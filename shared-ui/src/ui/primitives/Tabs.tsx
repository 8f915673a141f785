import * as TabsPrimitive from '@radix-ui/react-tabs';
import { forwardRef, useEffect, useImperativeHandle, useRef, type ComponentPropsWithoutRef } from 'react';
import styled from 'styled-components';
import { media } from '../theme';

/** Accessible tabs (arrow keys, roving focus) from Radix, in our look. */
export const Tabs = TabsPrimitive.Root;

/** How far the faded edge reaches; a tab brought into view clears it. */
const FADE_PX = 28;

const Strip = styled(TabsPrimitive.List)`
  position: relative;
  display: inline-flex;
  gap: 4px;
  padding: 4px;
  margin-bottom: 16px;
  border-radius: ${({ theme }) => theme.radius.md};
  background: ${({ theme }) => theme.colors.surfaceRaised};
  max-width: 100%;
  /* One row, as tabs read: where they do not fit (five on a phone) the row scrolls sideways, and a
     faded edge shows that more tabs lie beyond it. */
  overflow-x: auto;
  overscroll-behavior-x: contain;
  scrollbar-width: none;
  &::-webkit-scrollbar {
    display: none;
  }
  @media (prefers-reduced-motion: no-preference) {
    scroll-behavior: smooth;
  }
  &[data-more-end] {
    mask-image: linear-gradient(to right, #000 calc(100% - ${FADE_PX}px), transparent);
  }
  &[data-more-start] {
    mask-image: linear-gradient(to left, #000 calc(100% - ${FADE_PX}px), transparent);
  }
  &[data-more-start][data-more-end] {
    mask-image: linear-gradient(to right, transparent, #000 ${FADE_PX}px, #000 calc(100% - ${FADE_PX}px), transparent);
  }
`;

/** Marks the edges that hide tabs, and scrolls the active tab clear of them when it changes. */
function followActiveTab(list: HTMLElement): () => void {
  const mark = () => {
    const hidden = list.scrollWidth - list.clientWidth;
    list.toggleAttribute('data-more-start', list.scrollLeft > 1);
    list.toggleAttribute('data-more-end', list.scrollLeft < hidden - 1);
  };
  const reveal = () => {
    const tab = list.querySelector<HTMLElement>('[role="tab"][data-state="active"]');
    if (tab) {
      const start = tab.offsetLeft - FADE_PX;
      const end = tab.offsetLeft + tab.offsetWidth + FADE_PX;
      if (start < list.scrollLeft) list.scrollLeft = Math.max(0, start);
      else if (end > list.scrollLeft + list.clientWidth) list.scrollLeft = end - list.clientWidth;
    }
    mark();
  };
  reveal();
  list.addEventListener('scroll', mark, { passive: true });
  const changes = new MutationObserver(reveal);
  changes.observe(list, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-state'] });
  // jsdom has no ResizeObserver; a browser does.
  const resizes = typeof ResizeObserver === 'undefined' ? undefined : new ResizeObserver(mark);
  resizes?.observe(list);
  return () => {
    list.removeEventListener('scroll', mark);
    changes.disconnect();
    resizes?.disconnect();
  };
}

export const TabsList = forwardRef<HTMLDivElement, ComponentPropsWithoutRef<typeof TabsPrimitive.List>>(
  function TabsList(props, ref) {
    const list = useRef<HTMLDivElement>(null);
    useImperativeHandle(ref, () => list.current!);
    useEffect(() => (list.current ? followActiveTab(list.current) : undefined), []);
    return <Strip ref={list} {...props} />;
  },
);

export const TabsTrigger = styled(TabsPrimitive.Trigger)`
  flex: none;
  border: 0;
  padding: 8px 14px;
  border-radius: ${({ theme }) => theme.radius.sm};
  background: transparent;
  color: ${({ theme }) => theme.colors.muted};
  font-weight: 600;
  cursor: pointer;
  white-space: nowrap;
  /* Tighter on phones, so a card's three tabs fit without scrolling. */
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
