// The hook's command line: `baton hook PROVIDER [--aspects a,b] [--home DIR]`. Pure; shared by
// the hook process (main.ts) and its loader (boot.ts), which needs --home before anything loads.
export interface HookArgs {
  provider: string;
  aspects?: string;
  home?: string;
}

export function parseHookArgs(argv: string[]): HookArgs {
  const out: HookArgs = { provider: '' };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--aspects') out.aspects = argv[++i];
    else if (a.startsWith('--aspects=')) out.aspects = a.slice('--aspects='.length);
    else if (a === '--home') out.home = argv[++i];
    else if (a.startsWith('--home=')) out.home = a.slice('--home='.length);
    else if (!a.startsWith('-') && !out.provider) out.provider = a;
  }
  return out;
}
