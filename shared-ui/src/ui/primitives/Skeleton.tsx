import styled, { keyframes } from 'styled-components';

const pulse = keyframes`0%, 100% { opacity: 0.45; } 50% { opacity: 0.9; }`;

/** Placeholder of fixed size, so nothing jumps when data arrives. */
export const Skeleton = styled.span<{ $width?: string; $height?: string }>`
  display: inline-block;
  width: ${({ $width = '100%' }) => $width};
  height: ${({ $height = '16px' }) => $height};
  border-radius: ${({ theme }) => theme.radius.sm};
  background: ${({ theme }) => theme.colors.surfaceRaised};
  animation: ${pulse} 1.4s ease-in-out infinite;
`;
