import { useDiscussion } from '@repex/shared-ui/platform';
import { DiscussionView } from '@repex/shared-ui/ui';

/** The token's Discussion on its trading screen. */
export function Discussion(props: { tokenId: string; tokenName: string; isPerson: boolean; me: string | undefined }) {
  return <DiscussionView d={useDiscussion(props.tokenId)} {...props} />;
}
