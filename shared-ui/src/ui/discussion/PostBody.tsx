import { Fragment } from 'react';
import styled from 'styled-components';

const Text = styled.p`
  margin: 6px 0 0;
  white-space: pre-wrap;
  overflow-wrap: anywhere;
  line-height: 1.5;
  a {
    color: ${({ theme }) => theme.colors.accent};
    text-decoration: underline;
  }
`;

const LINK = /(https?:\/\/[^\s<>"']+[^\s<>"'.,;:!?)\]])/g;

/**
 * A post's plain text, as React renders text (never as HTML), with its web addresses as links that
 * open in a new tab and tell the other site nothing of RepX.
 */
export function PostBody({ text }: { text: string }) {
  const parts = text.split(LINK);
  return (
    <Text>
      {parts.map((part, i) =>
        i % 2 === 1 ? (
          <a key={i} href={part} target="_blank" rel="noopener noreferrer nofollow ugc">
            {part}
          </a>
        ) : (
          <Fragment key={i}>{part}</Fragment>
        ),
      )}
    </Text>
  );
}
