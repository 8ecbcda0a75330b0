#!/usr/bin/env python3
"""compare_generate.py REF B [--tie GAP] [--json FILE] — greedy generations against llama.cpp's.

REF: a generate.mjs JSON-lines file (make-reference.sh's <model>.generate.jsonl). B: the same kind of file
from the engine under test; per line at least {"name", "prompt_tokens", "tokens"} (other fields of
generate.mjs are optional). Lines are matched by "name" (else by order). For each prompt:

  - prompt_tokens must be equal (else the tokenizers differ: a failure on its own);
  - the generated tokens are compared up to the first difference, at step i;
  - a difference at step i is *explained* when REF's top-2 gap there (steps[i].gap, the log-prob / logit
    difference of llama.cpp's two best tokens) is below --tie (default 0.01): B may have picked llama.cpp's
    second token, and everything after is a different continuation. Otherwise it is a mismatch.

Exit 0 when every prompt matches fully or diverges only at an explained near-tie; 1 on any mismatch;
2 on bad input. Standard library only.
"""
import json
import sys


def load(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def main(argv):
    usage = "usage: compare_generate.py REF B [--tie GAP] [--json FILE]\n"
    args, tie, json_out = [], 0.01, None
    it = iter(argv)
    try:
        for x in it:
            if x in ("-h", "--help"):
                sys.stdout.write(usage + __doc__)
                return 0
            if x == "--tie":
                tie = float(next(it))
            elif x == "--json":
                json_out = next(it)
            elif x.startswith("--"):
                raise ValueError(f"unknown option {x}")
            else:
                args.append(x)
        if len(args) != 2:
            raise ValueError("need REF and B")
        ref, other = load(args[0]), load(args[1])
    except (ValueError, StopIteration, OSError) as e:
        sys.stderr.write(f"compare_generate.py: {e}\n{usage}")
        return 2
    by_name = {o.get("name"): o for o in other}
    results = []
    bad = 0
    for k, r in enumerate(ref):
        name = r.get("name")
        o = by_name.get(name) if name in by_name else (other[k] if k < len(other) else None)
        res = {"name": name, "n": len(r["tokens"])}
        if o is None:
            res.update(status="missing")
        elif o.get("prompt_tokens") is not None and o["prompt_tokens"] != r["prompt_tokens"]:
            res.update(status="prompt tokens differ")
        else:
            a, b = r["tokens"], o["tokens"]
            i = next((j for j in range(min(len(a), len(b))) if a[j] != b[j]), None)
            if i is None:
                same = min(len(a), len(b))
                res.update(status="match" if len(b) >= len(a) else "short", same_prefix=same)
            else:
                gap = r["steps"][i]["gap"] if "steps" in r else None
                second = r["steps"][i]["second"] if "steps" in r else None
                explained = gap is not None and gap < tie and b[i] == second
                res.update(status="near-tie" if explained else "mismatch", same_prefix=i, ref_token=a[i],
                           token=b[i], ref_second=second, ref_gap=gap)
        if res["status"] not in ("match", "near-tie"):
            bad += 1
        results.append(res)
        extra = ""
        if "same_prefix" in res and res["status"] != "match":
            extra = f" at step {res['same_prefix']}"
            if res.get("ref_gap") is not None:
                extra += f" (llama.cpp: {res['ref_token']} then {res['ref_second']}, gap {res['ref_gap']:.5f}; B: {res['token']})"
        print(f"{name}: {res['status']}{extra}, {res.get('same_prefix', 0)}/{res['n']} tokens equal")
    print(f"{len(ref) - bad}/{len(ref)} prompts agree (near-tie tolerance {tie})")
    if json_out:
        with open(json_out, "w") as f:
            json.dump({"tie": tie, "results": results, "failures": bad}, f, indent=2)
            f.write("\n")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
