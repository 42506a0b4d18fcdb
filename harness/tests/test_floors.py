"""The framework floors of the calibration: each variant's own HTTP framework answering 202 with nothing behind it.
test_compare_e2e measures Tomcat's inside a compare; this measures Akka HTTP's (java-spray-async's) on its own."""
import json

from tradebench_harness.measure import calibrate
from tradebench_harness.run import build, process, variants


def test_the_akka_http_floor_answers_202_and_is_measured_with_its_cpu(ctx, tmp_path):
    (spray,) = variants.select(ctx.root, "java-spray-async")
    spray.ensure_built(ctx, log=open(tmp_path / "build.log", "ab"))
    build.loadclient(ctx)
    port = process.free_port()
    f = calibrate.floor(ctx, spray.floor["name"], spray.floor_command(ctx, port), port, tmp_path, concurrency=8,
                        wait_ms=0, duration=2, warmup=1)
    assert "error" not in f, f
    load = json.loads((tmp_path / "floor-akka-http.json").read_text())
    # every answer was the 202 of an accepted order: the load client counts anything else as an error
    assert load["answers"]["accepted202"] > 0 and load["answers"].get("ioErrors", 0) == 0, load["answers"]
    assert f["ordersPerSecond"] > 0 and f["cpu"]["server"]["cpuPercent"] > 0
    assert f["cpuUsPerRequest"]["server"] > 0 and f["cpuUsPerRequest"]["loadclient"] > 0
    assert not process.http_ok(f"http://127.0.0.1:{port}/health", 1)     # stopped with the measurement
