import Claim from './claim'

/** `start` is `claim` under the name people reach for first. */
export default class Start extends Claim {
  static override summary = 'Same as claim.'
  static override aliases = []
}
