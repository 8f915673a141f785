import { useDiscussion } from '@repex/shared-ui/platform';
import { DiscussionView } from '@repex/shared-ui/ui';

/** The discussion of the person's own token, on their profile: they read, reply and open their holders' room here. */
export function TokenDiscussion({ tokenId, tokenName, me }: { tokenId: string; tokenName: string; me: string }) {
  return <DiscussionView d={useDiscussion(tokenId)} tokenName={tokenName} isPerson me={me} />;
}
