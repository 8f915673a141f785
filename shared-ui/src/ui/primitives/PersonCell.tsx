import styled from 'styled-components';
import { Avatar } from './Avatar';
import { VerifiedBadge } from './Badge';

const Row = styled.div`
  display: flex;
  align-items: center;
  gap: 10px;
  min-width: 0;
`;
const Name = styled.div`
  font-weight: 600;
  display: flex;
  align-items: center;
  gap: 6px;
`;
const Sub = styled.div`
  color: ${({ theme }) => theme.colors.muted};
  font-size: 12px;
`;

/** Avatar, name with the verified mark, and @username (and category) under it. */
export function PersonCell(p: {
  name: string;
  username: string;
  avatarUrl?: string | null;
  verified?: boolean;
  category?: string;
}) {
  return (
    <Row>
      <Avatar name={p.name} src={p.avatarUrl} size={36} />
      <div>
        <Name>
          {p.name}
          {p.verified && <VerifiedBadge />}
        </Name>
        <Sub>
          @{p.username}
          {p.category && ` · ${p.category}`}
        </Sub>
      </div>
    </Row>
  );
}
