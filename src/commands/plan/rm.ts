import type {PlanRmResult} from '../../app/plan-actions'
import {neutralize} from '../../core/untrusted-text'
import {planRm} from '../../operations/plans'
import {confirmOnTerminal, terminalQuestions} from '../confirm'
import {interactive} from '../editor'
import {engine} from '../engine-loader'
import {commandFrom} from '../from-spec'

export default commandFrom<PlanRmResult>(planRm, {
  // On a terminal the question stands for --confirm; without one, the operation's check wants the flag (exit 2, nothing removed).
  execute: async ({args, flags, run}) => {
    if (args.confirm === undefined && interactive()) {
      if (!flags.yes) {
        const term = terminalQuestions()
        try {
          await confirmOnTerminal(`remove the plan ${neutralize(String(args.name))}?`, term)
        } finally {
          term.close()
        }
      }
      args.confirm = args.name
    }
    return run(args)
  },
  render: (r, term) => engine().renderPlans.renderPlanRm(term, r),
})
