"""The Java modules of the root pom are layered as docs/architecture.md draws them: the shared modules
(engine-*) below, the variants (java-*) on top, and no arrow up. No variant module depends on another
variant module: tuning one measured variant must never change another (each one's Akka and Pekko builds
alike); no shared module depends on a variant or on the load client. Read from the poms (every dependency,
test scope included), nothing built."""
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NS = {"m": "http://maven.apache.org/POM/4.0.0"}

#: each shared module and the shared modules it may depend on (a pekko/ build: its Akka module's row)
LAYERS = {
    "engine-model": set(),
    "engine-wire": {"engine-model"},
    "engine-jdbc": {"engine-model"},
    "engine-servlet": {"engine-model", "engine-wire", "engine-jdbc"},
    "engine-threads": {"engine-model", "engine-wire", "engine-jdbc", "engine-servlet"},
    "engine-spray": {"engine-model", "engine-wire"},
}


def root_modules(root: Path) -> list[str]:
    """The module folders the root pom lists (a pekko/ build by its path: java-akka/pekko)."""
    pom = ET.parse(root / "pom.xml").getroot()
    return [m.text.strip() for m in pom.findall("m:modules/m:module", NS)]


def artifact_and_dependencies(root: Path, module: str) -> tuple[str, set[str]]:
    """MODULE's artifactId and the artifactIds of the project's own modules it depends on, in any scope."""
    pom = ET.parse(root / module / "pom.xml").getroot()
    group = pom.findtext("m:groupId", default=None, namespaces=NS) or pom.findtext("m:parent/m:groupId", namespaces=NS)
    deps = {d.findtext("m:artifactId", namespaces=NS).strip()
            for d in pom.findall("m:dependencies/m:dependency", NS)
            if (d.findtext("m:groupId", namespaces=NS) or "").strip() == group}
    return pom.findtext("m:artifactId", namespaces=NS).strip(), deps


def module_graph(root: Path) -> dict[str, set[str]]:
    """Module folder -> the module folders it depends on (dependencies named by artifactId)."""
    modules = root_modules(root)
    found = {m: artifact_and_dependencies(root, m) for m in modules}
    folder_of = {artifact: m for m, (artifact, _) in found.items()}
    return {m: {folder_of[d] for d in deps if d in folder_of} for m, (_, deps) in found.items()}


def kind(module: str) -> str:
    """shared (engine-*), variant (java-*), a measuring tool (bench-*), or the load client; a pekko/ build is its
    Akka module's kind."""
    top = module.split("/")[0]
    return "shared" if top.startswith("engine-") else "variant" if top.startswith("java-") else \
        "bench" if top.startswith("bench-") else top


def problems(root: Path) -> list[str]:
    """Every dependency against the layering, as 'a -> b: why'."""
    out = []
    for module, deps in sorted(module_graph(root).items()):
        top = module.split("/")[0]
        if kind(module) not in ("shared", "variant", "bench", "loadclient"):
            out.append(f"{module}: neither a shared module (engine-*), a variant (java-*), a measuring tool (bench-*)"
                       " nor the load client")
        for d in sorted(deps):
            d_top = d.split("/")[0]
            if kind(module) == "variant" and kind(d) == "variant" and d_top != top:
                out.append(f"{module} -> {d}: a variant module depends on another variant module")
            elif kind(module) == "shared" and kind(d) != "shared":
                out.append(f"{module} -> {d}: a shared module depends on a {kind(d)} module")
            elif kind(module) == "shared" and d_top not in LAYERS.get(top, set()):
                out.append(f"{module} -> {d}: not below {top} in the layers (harness/tests/test_java_modules.py)")
            elif kind(d) == "loadclient":
                out.append(f"{module} -> {d}: the load client is a tool, no module's library")
            elif kind(d) == "bench":
                out.append(f"{module} -> {d}: a measuring tool is no module's library")
    return out


def test_the_java_modules_are_layered_and_no_variant_depends_on_another():
    graph = module_graph(ROOT)
    variants = {m for m in graph if kind(m) == "variant"}
    assert {"java-threads", "java-akka", "java-spray-async", "java-spray-cluster", "java-virtual",
            "java-spray-async/pekko", "java-spray-cluster/pekko"} <= variants, sorted(graph)
    assert {m for m in graph if kind(m) == "shared"} == set(LAYERS) | {"engine-spray/pekko"}, \
        "a shared module not in LAYERS: give it its row"
    assert "engine-spray" in graph["java-spray-cluster"] and "engine-spray/pekko" in graph["java-spray-cluster/pekko"]
    found = problems(ROOT)
    assert not found, "module dependencies against the layering: " + "; ".join(found)


def pom(artifact: str, deps: list[str], parent_path: str = "") -> str:
    rel = f"<relativePath>{parent_path}</relativePath>" if parent_path else ""
    body = "".join(f"<dependency><groupId>tradebench</groupId><artifactId>{d}</artifactId></dependency>" for d in deps)
    return (f'<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>'
            f"<parent><groupId>tradebench</groupId><artifactId>tradebench</artifactId><version>1</version>{rel}</parent>"
            f"<artifactId>{artifact}</artifactId><dependencies>{body}"
            "<dependency><groupId>org.slf4j</groupId><artifactId>java-akka</artifactId></dependency>"  # not ours
            "</dependencies></project>")


def test_the_check_names_each_dependency_against_the_layers(tmp_path):
    """A tree whose poms break each rule once; the same tree repaired passes."""
    modules = {"engine-model": ("engine-model", []), "engine-wire": ("engine-wire", ["engine-model"]),
               "engine-spray": ("engine-spray", ["engine-wire"]),
               "engine-spray/pekko": ("engine-spray-pekko", ["engine-wire"]),
               "java-akka": ("java-akka", ["engine-wire"]),
               "java-spray-async": ("java-spray-async", ["engine-spray"]),
               "java-spray-async/pekko": ("java-spray-async-pekko", ["engine-spray-pekko"]),
               "java-spray-cluster": ("java-spray-cluster", ["engine-spray"]),
               "java-spray-cluster/pekko": ("java-spray-cluster-pekko", ["engine-spray-pekko"]),
               "loadclient": ("loadclient", ["engine-model"]),
               "bench-ring": ("bench-ring", [])}

    def write(tree: dict):
        (tmp_path / "pom.xml").write_text(
            '<project xmlns="http://maven.apache.org/POM/4.0.0"><modules>'
            + "".join(f"<module>{m}</module>" for m in tree) + "</modules></project>")
        for m, (artifact, deps) in tree.items():
            (tmp_path / m).mkdir(parents=True, exist_ok=True)
            (tmp_path / m / "pom.xml").write_text(pom(artifact, deps, "../../pom.xml" if "/" in m else ""))

    write(modules)
    assert problems(tmp_path) == []
    broken = {**modules,
              "java-spray-cluster": ("java-spray-cluster", ["java-spray-async"]),
              "java-spray-cluster/pekko": ("java-spray-cluster-pekko", ["java-spray-async-pekko"]),
              "engine-wire": ("engine-wire", ["engine-model", "java-akka"]),
              "engine-model": ("engine-model", ["engine-wire"]),
              "java-akka": ("java-akka", ["engine-wire", "loadclient"]),
              "java-spray-async": ("java-spray-async", ["engine-spray", "bench-ring"])}
    write(broken)
    assert problems(tmp_path) == [
        "engine-model -> engine-wire: not below engine-model in the layers (harness/tests/test_java_modules.py)",
        "engine-wire -> java-akka: a shared module depends on a variant module",
        "java-akka -> loadclient: the load client is a tool, no module's library",
        "java-spray-async -> bench-ring: a measuring tool is no module's library",
        "java-spray-cluster -> java-spray-async: a variant module depends on another variant module",
        "java-spray-cluster/pekko -> java-spray-async/pekko: a variant module depends on another variant module",
    ]
