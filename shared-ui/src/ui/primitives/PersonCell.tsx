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

/** Who a row is about, as the read models name it. */
export interface Person {
  name: string;
  username: string;
  avatar_url?: string | null;
  verified?: boolean;
  category?: string;
}

/** Avatar, name with the verified mark, and @username (and the category, unless told not to) under it. */
export function PersonCell({ person, withCategory = true }: { person: Person; withCategory?: boolean }) {
  return (
    <Row>
      <Avatar name={person.name} src={person.avatar_url} size={36} />
      <div>
        <Name>
          {person.name}
          {person.verified && <VerifiedBadge />}
        </Name>
        <Sub>
          @{person.username}
          {withCategory && person.category && ` · ${person.category}`}
        </Sub>
      </div>
    </Row>
  );
}
