import Claim from './claim'

/** `start` is `claim` under the name people reach for first. */
export default class Start extends Claim {
  static override summary = 'Same as claim.'
  static override examples = ['<%= config.bin %> start tsk-k3v9 --lease 2h']
  static override aliases = []
}
