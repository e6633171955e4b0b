#!/usr/bin/python3
"""Checks sptune's library graph against the layers of ../shared/DESIGN.md.

    check-layers.py DEPS.dot      (the output of `cmake --graphviz=DEPS.dot`)

Every sptune library (Sptune*) has a layer; a library may link libraries of
its own layer or below, never above, and the graph has no cycle. Prints the
layers with their libraries and each violation; exits 1 on a violation or a
library that has no layer (so a new library gets one), 0 otherwise.

Known upward edges the redesign (issue 30) has not removed yet are listed in
KNOWN, each with the reason; they are reported but do not fail, and an entry
that no longer occurs fails, so the list only shrinks.
"""
import re
import sys

# Lowest first. A library links only its own layer or lower ones.
LAYERS = [
    ("values", ["SptuneHeaders", "SptuneSchedule", "SptuneMatrix",
                "SptuneMachine"]),
    # The Target interface and registry: plain C++ the cost model, the passes
    # and the measurement side all see targets through.
    ("target-interface", ["SptuneTargetRegistry", "SptuneTuningDatabase"]),
    ("cost-model", ["SptuneCostModelFeatures", "SptuneCostModelRanking",
                    "SptuneCostModel",
                    "SptuneLearnCore", "SptuneLearn"]),
    ("target-descriptions", ["SptuneTargetCpuSpace", "SptuneTargetNvvmSpace",
                             "SptuneTargetSpadeSpace", "SptuneTargets",
                             "SptuneSpadeProgram"]),
    # sptune's dialect, the kernel matcher, and the MLIR passes several
    # targets' lowerings share.
    ("ir", ["SptuneIR", "SptuneAnalysis", "SptuneLowering"]),
    ("target-lowering", ["SptuneTargetCpu", "SptuneTargetNvvm",
                         "SptuneTargetSpade", "SptuneTargetPasses"]),
    ("passes", ["SptuneTune", "SptuneTransforms", "SptuneRegistration"]),
    ("measurement", ["SptuneTargetJit", "SptuneTargetCpuMeasure",
                     "SptuneTargetNvvmMeasure", "SptuneSpadeSim",
                     "SptuneEigenBaseline", "SptuneRsbBaseline",
                     "SptuneReferenceBaseline", "SptuneTorchBaseline",
                     "SptuneCollect", "SptuneMeasurers", "SptuneLearnDriver"]),
]

KNOWN = {
    # None today: every edge goes down or sideways.
}


def main(path):
    text = open(path).read()
    labels = dict(re.findall(r'"(node\d+)" \[ label = "([^"\\]+)', text))
    layer_of = {lib: n for n, (_, libs) in enumerate(LAYERS) for lib in libs}
    edges = set()
    for a, b in re.findall(r'"(node\d+)" -> "(node\d+)"', text):
        la, lb = labels.get(a, ""), labels.get(b, "")
        # Libraries only: tests, tools and the exported aliases link upward by
        # design.
        if not (la.startswith("Sptune") and lb.startswith("Sptune")):
            continue
        if la.endswith("Tests") or "Alias" in la or la == lb:
            continue
        edges.add((la, lb))
    libs = {x for e in edges for x in e}
    failures = []
    for lib in sorted(libs - set(layer_of)):
        failures.append(f"library {lib} has no layer (add it to LAYERS)")
    seen_known = set()
    for a, b in sorted(edges):
        if a in layer_of and b in layer_of and layer_of[b] > layer_of[a]:
            what = (f"{a} ({LAYERS[layer_of[a]][0]}) links {b} "
                    f"({LAYERS[layer_of[b]][0]})")
            if (a, b) in KNOWN:
                seen_known.add((a, b))
                print(f"known: {what}: {KNOWN[(a, b)]}")
            else:
                failures.append("upward edge: " + what)
    for edge in sorted(set(KNOWN) - seen_known):
        failures.append(f"KNOWN lists {edge[0]} -> {edge[1]}, which is gone: "
                        "remove it")
    # Cycles (a layer's libraries may link each other, but not in a circle).
    graph = {}
    for a, b in edges:
        graph.setdefault(a, []).append(b)
    state = {}

    def visit(node, stack):
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, [])):
            if state.get(nxt) == 1:
                failures.append("cycle: " + " -> ".join(
                    stack[stack.index(nxt):] + [nxt]))
            elif nxt not in state:
                visit(nxt, stack)
        stack.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node, [])
    for n, (name, members) in enumerate(LAYERS):
        present = [m for m in members if m in libs]
        print(f"layer {n} {name}: {', '.join(present) or '-'}")
    print(f"{len(libs)} libraries, {len(edges)} edges")
    for f in failures:
        print("error: " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1]))
