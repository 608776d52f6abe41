import type {ClaimOutput} from '../app/claim-actions'
import {neutralize} from '../core/untrusted-text'
import {takeover} from '../operations/claims'
import {renderClaim} from './claim'
import {askOnTerminal} from './confirm'
import {interactive} from './editor'
import {commandFrom} from './from-spec'

export default commandFrom<ClaimOutput>(takeover, {
  // On a terminal without --confirm, the id is asked for (typed again); a script or an agent passes --confirm ID.
  execute: async ({args, run}) => {
    if (args.confirm === undefined && interactive()) {
      const id = neutralize(String(args.id))
      args = {...args, confirm: await askOnTerminal(`take over ${id} from its live owner? type ${id} to confirm:`)}
    }
    return run(args)
  },
  render: renderClaim,
})
