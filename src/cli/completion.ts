// `baton completion bash|zsh|fish`: a shell completion script made from the commander program
// itself — every command path, its subcommands and its options — so it cannot drift from the
// command line. Pure text out; nothing read or written.
import type { Command } from 'commander';
import { fail } from '../core/errors.ts';
import { type GlobalOptions, run } from './output.ts';

interface Node {
  /** The command path below `baton`, e.g. `session artifact` ('' for baton itself). */
  path: string;
  subcommands: { name: string; description: string }[];
  options: { flag: string; description: string }[];
}

const SHELLS = ['bash', 'zsh', 'fish'] as const;

function nodesOf(program: Command): Node[] {
  const out: Node[] = [];
  const flags = (cmd: Command) => cmd.options.map((o) => ({ flag: o.long ?? o.short ?? '', description: o.description })).filter((o) => o.flag);
  // Global options are taken anywhere (docs/cli.md); --version only on baton itself.
  const globals = flags(program).filter((o) => o.flag !== '--version');
  const walk = (cmd: Command, path: string): void => {
    const subs = cmd.commands.filter((c) => c.name() !== 'help');
    const own = cmd === program ? flags(program).filter((o) => o.flag === '--version') : flags(cmd);
    out.push({ path, subcommands: subs.map((c) => ({ name: c.name(), description: c.description() })), options: [...own, ...globals, { flag: '--help', description: 'display help for command' }] });
    for (const c of subs) walk(c, path ? `${path} ${c.name()}` : c.name());
  };
  walk(program, '');
  return out;
}

const sq = (s: string): string => `'${s.replaceAll("'", "'\\''")}'`;

function bash(nodes: Node[]): string {
  const cases = nodes.map((n) => `    ${sq(n.path)}) echo ${sq([...n.subcommands.map((s) => s.name), ...n.options.map((o) => o.flag)].join(' '))} ;;`);
  return `# baton completion for bash: source <(baton completion bash)
_baton_words() {
  case "$1" in
${cases.join('\n')}
    *) return 1 ;;
  esac
}
_baton() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" path="" next i
  for ((i = 1; i < COMP_CWORD; i++)); do
    case "\${COMP_WORDS[i]}" in
      -*) ;;
      *) next="\${path:+$path }\${COMP_WORDS[i]}"; _baton_words "$next" >/dev/null && path="$next" ;;
    esac
  done
  COMPREPLY=($(compgen -W "$(_baton_words "$path")" -- "$cur"))
}
complete -o default -F _baton baton
`;
}

function fish(nodes: Node[]): string {
  const lines = [
    '# baton completion for fish: baton completion fish | source',
    `set -g __baton_paths ${nodes.filter((n) => n.path).map((n) => sq(n.path)).join(' ')}`,
    'function __baton_at',
    '  set -l path ""',
    '  for w in (commandline -opc)[2..-1]',
    "    string match -q -- '-*' $w; and continue",
    '    set -l next (string trim -- "$path $w")',
    '    contains -- $next $__baton_paths; and set path $next',
    '  end',
    '  test "$path" = "$argv[1]"',
    'end',
  ];
  for (const n of nodes) {
    const at = `-n ${sq(`__baton_at ${sq(n.path)}`)}`;
    for (const s of n.subcommands) lines.push(`complete -c baton -f ${at} -a ${sq(s.name)} -d ${sq(s.description.slice(0, 80))}`);
    for (const o of n.options) {
      const flag = o.flag.startsWith('--') ? `-l ${o.flag.slice(2)}` : `-s ${o.flag.slice(1)}`;
      lines.push(`complete -c baton ${at} ${flag} -d ${sq(o.description.slice(0, 80))}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

/** The completion script for `shell`; USAGE for a shell baton has none for. */
export function completionScript(program: Command, shell: string): string {
  if (!(SHELLS as readonly string[]).includes(shell)) fail('USAGE', `no completion for ${JSON.stringify(shell)}: give one of ${SHELLS.join(', ')}`, { shells: [...SHELLS] });
  const nodes = nodesOf(program);
  if (shell === 'fish') return fish(nodes);
  if (shell === 'zsh') return `# baton completion for zsh: source <(baton completion zsh)\nautoload -U +X bashcompinit && bashcompinit\n${bash(nodes)}`;
  return bash(nodes);
}

export function registerCompletionCommand(program: Command, globals: () => GlobalOptions): void {
  program
    .command('completion')
    .description('print a shell completion script: source <(baton completion bash), zsh the same, baton completion fish | source')
    .argument('<shell>', SHELLS.join(' | '))
    .action((shell: string) =>
      run(globals(), () => {
        const script = completionScript(program, shell);
        return { json: { ok: true, shell, script }, text: script };
      }),
    );
}
