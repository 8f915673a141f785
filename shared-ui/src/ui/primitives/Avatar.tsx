import styled from 'styled-components';

const Circle = styled.span<{ $size: number }>`
  display: inline-flex;
  flex: none;
  align-items: center;
  justify-content: center;
  width: ${({ $size }) => $size}px;
  height: ${({ $size }) => $size}px;
  border-radius: 50%;
  overflow: hidden;
  background: ${({ theme }) => theme.gradient};
  color: #fff;
  font-weight: 700;
  font-size: ${({ $size }) => Math.round($size * 0.38)}px;
  img {
    width: 100%;
    height: 100%;
    object-fit: cover;
  }
`;

function initials(name: string): string {
  return name
    .split(/\s+/)
    .filter(Boolean)
    .slice(0, 2)
    .map((w) => w[0]!.toUpperCase())
    .join('');
}

/** A picture when there is one, else the initials on the brand gradient. */
export function Avatar({ name, src, size = 40 }: { name: string; src?: string | null; size?: number }) {
  return (
    <Circle $size={size} aria-hidden="true">
      {src ? <img src={src} alt="" loading="lazy" /> : initials(name)}
    </Circle>
  );
}
