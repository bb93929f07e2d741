"""Triage queue latency: 200,000 claims, gunicorn as in production, 10 concurrent users.

    python bench/queue_bench.py [--claims 200000] [--articles 4000] [--outlets 300]
                                [--shape spread|syndicated]
                                [--workers 3] [--threads 1] [--users 10] [--duration 15]
                                [--only NAME ...] [--reuse]

Two shapes of data: `spread` (dates spread over 30 days, 20,000 clusters of about three
appearances, every other claim a cluster of its own) and `syndicated` (undated articles, so
every claim is seen on its import day, the last three days; every claim in a cluster of 5 to
10 appearances of one sentence across outlets, as wire copy gives). Prints the stored order's
refresh cost (services.queue_order_refresh) when the day turns and when it stands.

Fills a throw-away database `<name>_queue_bench` on DATABASE_URL's server with set-based
INSERT ... SELECT generate_series (realistic priorities with ties, statuses, types,
quantities, speakers, 20,000 clusters of about three appearances, each with one reviewer state,
and every other claim a cluster of its own, as the pipeline keys them, over a few thousand
articles and a few hundred outlets),
serves the app with gunicorn (DEBUG off), logs a reviewer in through the login form and
measures queue pages with wrk (a Lua script prints the percentiles; a Python load
generator stands in when wrk is missing): the first page, a filtered page, a keyset page
half way down the queue, searches, the article filters (metadata, title) and the count
requests the pages make. Prints median and p95 latency per page (target p95 < 150 ms), and
the CPU each request cost gunicorn's workers and PostgreSQL's backends (when the server runs
on this machine).
"""

from __future__ import annotations

import argparse
import http.client
import http.cookiejar
import os
import re
import secrets
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.parse
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.pipeline_bench import bench_database_url, setup_django  # noqa: E402

WRK_SCRIPT = ROOT / "bench" / "queue_wrk.lua"
PASSWORD = "bench-password-not-secret"
TARGET_P95_MS = 150.0

FILL_SQL = """
SELECT setseed(0.42);

INSERT INTO outlets (name, domain)
SELECT 'Outlet ' || g, 'outlet' || g || '.example' FROM generate_series(1, %(outlets)s) g;

INSERT INTO articles (outlet_id, title, url, author, published_at, text, content_hash, metadata, created_at)
SELECT
    (SELECT min(id) FROM outlets) + (g %% %(outlets)s),
    CASE WHEN g %% 5 = 0 THEN ''
         ELSE 'Council debates ' || (ARRAY['budget', 'policing', 'housing', 'schools', 'transit', 'immigration'])[1 + g %% 6] || ' plan, part ' || g
    END,
    'https://outlet' || (g %% %(outlets)s) || '.example/story/' || g,
    'Reporter ' || (g %% 97),
    CASE WHEN %(syndicated)s THEN NULL ELSE now() - make_interval(hours => g %% 2000) END,
    'Lead paragraph of story ' || g || E'.\n\n' || repeat('The council met again on Tuesday to hear from residents about the plan. ', 25),
    md5('article' || g) || md5('article-b' || g),
    -- Imported metadata as BBC's corpus has it: a category that groups the articles (the
    -- filter bar offers it) and an id of each (it does not).
    jsonb_build_object('category', (ARRAY['business', 'politics', 'sport', 'tech', 'entertainment'])[1 + g %% 5], 'id', 'story/' || g),
    now()
FROM generate_series(1, %(articles)s) g;

CREATE TEMP TABLE bench_claims AS
SELECT
    g,
    (SELECT min(id) FROM articles) + (g %% %(articles)s) AS article_id,
    random() AS score,
    (ARRAY['numeric','numeric','numeric','comparison','comparison','causal','quote','quote','official_action','prediction','other'])
        [1 + floor(random() * 11)::int] AS claim_type,
    (ARRAY['new','new','new','new','new','new','new','new','new','new','new','new','new','new',
           'check','check','dismissed','dismissed','in_research','drafted'])[1 + floor(random() * 20)::int] AS status,
    CASE WHEN random() < 0.6 THEN (ARRAY['Todd Lyons','Michelle Wu','Maura Healey','Ayanna Pressley','Tom Homan','Kristi Noem','Ed Markey',
        'Elizabeth Warren','Andrea Campbell','Kim Janey','Charlie Baker','Josh Kraft'])[1 + floor(random() * 12)::int]
        || CASE WHEN g %% 7 = 0 THEN ' Jr' ELSE '' END
        ELSE '' END AS speaker,
    CASE WHEN %(syndicated)s
         -- Each block of 15 claims: two clusters, of 5 to 10 appearances each.
         THEN 'k' || lpad(((g / 15) * 2 + ((g %% 15) >= 5 + (g / 15) %% 6)::int)::text, 39, '0')
         -- NULL: a claim no other appearance shares, a cluster of one under its own key.
         WHEN random() < 0.3 THEN 'k' || lpad((g %% 20000)::text, 39, '0') END AS shared_key,
    CASE WHEN %(syndicated)s THEN floor(random() * 3)::int ELSE floor(random() * 30)::int END AS age_days,
    1 + floor(random() * 3000)::int AS number
FROM generate_series(1, %(claims)s) g;

-- The cluster is the unit of work: its reviewer state is its first appearance's here (a claim
-- in no shared cluster is its own, under its own key, as the pipeline stores it).
CREATE TEMP TABLE bench_clusters AS
SELECT DISTINCT ON (cluster_key) cluster_key, status, assignee_id, dismiss_reason, tags, size, outlet_count
FROM (
    SELECT COALESCE(c.shared_key, md5('claim' || c.g) || substr(md5('claim-b' || c.g), 1, 8)) AS cluster_key, c.g, c.status,
           CASE WHEN c.status IN ('check', 'in_research', 'drafted') OR random() < 0.05
                THEN (ARRAY[%(user_ids)s])[1 + c.g %% %(user_count)s] END AS assignee_id,
           CASE WHEN c.status = 'dismissed' THEN 'Opinion, not checkable' ELSE '' END AS dismiss_reason,
           CASE WHEN c.g %% 20 = 0 THEN ARRAY['budget']::varchar(40)[] ELSE '{}'::varchar(40)[] END AS tags,
           count(*) OVER w AS size, least(count(*) OVER w, 8) AS outlet_count
    FROM bench_claims c
    WINDOW w AS (PARTITION BY COALESCE(c.shared_key, md5('claim' || c.g) || substr(md5('claim-b' || c.g), 1, 8)))
) m
ORDER BY cluster_key, g;

INSERT INTO claim_clusters (cluster_key, size, outlet_count, first_seen_at, updated_at, status, assignee_id, dismiss_reason, tags, version)
SELECT cluster_key, size, outlet_count, now(), now(), status, assignee_id, dismiss_reason, tags, 1
FROM bench_clusters;

INSERT INTO claims (article_id, claim_key, sentence, start_offset, end_offset, score, claim_type, claim_types, quantities, speaker,
                    speaker_title, attribution, cluster_key, priority, priority_parts, seen_at, created_at, updated_at)
SELECT
    c.article_id,
    md5('claim' || c.g) || substr(md5('claim-b' || c.g), 1, 8),
    (ARRAY['ICE detained', 'The city spent', 'Crime rose by', 'Officials deported', 'The state hired', 'Rents climbed', 'Police arrested'])[1 + c.g %% 7]
        || ' ' || c.number || ' ' || (ARRAY['people', 'million dollars', 'percent', 'officers', 'families', 'cases'])[1 + c.g %% 6]
        || ' in ' || (ARRAY['Boston', 'Worcester', 'Springfield', 'Lowell', 'Cambridge'])[1 + c.g %% 5] || ' last '
        || (ARRAY['year', 'month', 'week', 'quarter'])[1 + c.g %% 4] || ', according to report '
        -- A syndicated cluster's appearances cite one report.
        || CASE WHEN %(syndicated)s THEN c.shared_key ELSE c.g::text END || '.',
    (c.g / %(articles)s) * 300,
    (c.g / %(articles)s) * 300 + 120,
    c.score,
    c.claim_type,
    ARRAY[c.claim_type],
    CASE WHEN c.claim_type IN ('numeric', 'comparison')
        THEN jsonb_build_array(jsonb_build_object('text', c.number || ' people', 'value', c.number, 'unit', 'people', 'hedge',
             (ARRAY['exact', 'approximately', 'approximately-below'])[1 + c.g %% 3], 'start', 0, 'end', 10))
        ELSE '[]'::jsonb END,
    c.speaker,
    CASE WHEN c.speaker <> '' AND c.g %% 3 = 0 THEN 'Acting Director' ELSE '' END,
    CASE WHEN c.speaker = '' THEN 'article' ELSE 'direct_quote' END,
    -- A claim in no shared cluster is its own, under its own key, as the pipeline stores it.
    COALESCE(c.shared_key, md5('claim' || c.g) || substr(md5('claim-b' || c.g), 1, 8)),
    -- A standing priority like the pipeline's (check-worthiness 50 x score, type up to 15,
    -- spread 5), rounded to one decimal so that many claims tie; recency (the default
    -- weights' 10 points, halving weekly) is added as the queue reads, from seen_at.
    round((50 * c.score
           + CASE c.claim_type WHEN 'numeric' THEN 15 WHEN 'comparison' THEN 12 WHEN 'causal' THEN 12 WHEN 'official_action' THEN 10
                               WHEN 'prediction' THEN 8 WHEN 'quote' THEN 6 ELSE 0 END
           + CASE WHEN c.shared_key IS NOT NULL THEN 5 ELSE 0 END)::numeric, 1)::float8,
    jsonb_build_object('checkworthiness', round((50 * c.score)::numeric, 1), 'type',
                       CASE c.claim_type WHEN 'numeric' THEN 15 WHEN 'comparison' THEN 12 WHEN 'causal' THEN 12 WHEN 'official_action' THEN 10
                                         WHEN 'prediction' THEN 8 WHEN 'quote' THEN 6 ELSE 0 END,
                       'spread', CASE WHEN c.shared_key IS NOT NULL THEN 5 ELSE 0 END,
                       'outlets', CASE WHEN c.shared_key IS NOT NULL THEN 2 ELSE 1 END),
    now() - make_interval(days => c.age_days),
    now(), now()
FROM bench_claims c;

-- A cluster's appearances rank by one wording's parts (its lead's: here its first's).
UPDATE claims c SET priority = f.priority, priority_parts = f.priority_parts
FROM (SELECT DISTINCT ON (cluster_key) cluster_key, priority, priority_parts
      FROM claims WHERE cluster_key LIKE 'k%%' ORDER BY cluster_key, id) f
WHERE c.cluster_key = f.cluster_key
  AND (c.priority, c.priority_parts) IS DISTINCT FROM (f.priority, f.priority_parts);

ANALYZE;
"""


def fill(*, claims: int, articles: int, outlets: int, syndicated: bool) -> tuple[str, str]:
    """Create the users and rows; returns the reviewer's username and the deep page's cursor."""
    from django.db import connection

    from factcheck.accounts.roles import Role
    from factcheck.accounts.services import user_create_with_role
    from factcheck.claims.models import Claim

    reviewer = user_create_with_role(username="bench-reviewer", role=Role.REVIEWER, password=PASSWORD)[0]
    others = [user_create_with_role(username=f"bench-colleague-{n}", role=Role.REVIEWER, password=PASSWORD)[0] for n in range(5)]
    user_ids = [reviewer.pk, *(user.pk for user in others)]
    started = time.perf_counter()
    with connection.cursor() as cursor:
        params = {"claims": claims, "articles": articles, "outlets": outlets, "user_count": len(user_ids), "syndicated": syndicated}
        sql = FILL_SQL.replace("%(user_ids)s", ",".join(str(pk) for pk in user_ids))
        cursor.execute(sql, params)
        # As autovacuum leaves a settled table: the queue reads totals from its index alone
        # (an index-only scan needs the visibility map).
        cursor.execute("VACUUM ANALYZE claims")
        cursor.execute("VACUUM ANALYZE claim_clusters")
    print(f"filled {Claim.objects.count()} claims over {articles} articles and {outlets} outlets in {time.perf_counter() - started:.1f}s")
    return reviewer.username, middle_cursor(claims)


def middle_cursor(claims: int) -> str:
    """The cursor of the claim half way down the queue (queue order: queue_rank, then id)."""
    from factcheck.claims.models import Claim
    from factcheck.claims.queue.filters import QUEUE_ORDER, encode_cursor

    rank, pk = Claim.objects.order_by(*QUEUE_ORDER).values_list("queue_rank", "id")[claims // 2]
    return encode_cursor(rank, pk)


def refresh_cost() -> None:
    """What the stored order's refresh costs: when the day turns (the ranks computed against
    yesterday first, so that every claim whose recency changes today is rewritten), and when
    it stands."""
    from django.db import connection

    from factcheck.claims.ranking.services import QUEUE_ORDER_RANKS_SQL, queue_order_refresh

    with connection.cursor() as cursor:
        cursor.execute("UPDATE claim_queue_order_basis SET day = day - 1")
        cursor.execute(QUEUE_ORDER_RANKS_SQL)
        cursor.execute("VACUUM ANALYZE claims")
    started = time.perf_counter()
    rewritten = queue_order_refresh()
    turned = time.perf_counter() - started
    started = time.perf_counter()
    queue_order_refresh()
    stands = time.perf_counter() - started
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE claims")
    print(f"order refresh: the day turns {turned * 1000:.0f} ms ({rewritten:,} ranks rewritten); the day stands {stands * 1000:.1f} ms")


def cpu_seconds(pids: list[int]) -> dict[int, float]:
    """utime + stime of each process on this machine, in seconds (a process gone is left out)."""
    seconds = {}
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        seconds[pid] = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return seconds


def cpu_since(before: dict[int, float], pids: list[int]) -> float:
    """The CPU seconds `pids` used since `before`; a process started since counts whole (a
    worker's database connection can be replaced during a run: CONN_MAX_AGE)."""
    return sum(seconds - before.get(pid, 0.0) for pid, seconds in cpu_seconds(pids).items())


def children_of(parent: int) -> list[int]:
    """The processes whose parent is `parent` (gunicorn's workers)."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == parent:
                found.append(int(entry.name))
        except OSError:
            continue
    return found


def backend_pids() -> list[int]:
    """The PostgreSQL backends serving the bench database, other than this process's own.
    Their CPU can be read only when the server runs on this machine."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()")
        pids = [pid for (pid,) in cursor.fetchall()]
    return [pid for pid in pids if Path(f"/proc/{pid}/stat").exists()]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_until_serving(port: int, process: subprocess.Popen[bytes], timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError("gunicorn exited early")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError("gunicorn did not start")


def log_in(base: str, username: str) -> str:
    """Log in through the login form like a browser; returns the session cookie."""
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    page = opener.open(f"{base}/login/").read().decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)  # type: ignore[union-attr]
    data = urllib.parse.urlencode({"username": username, "password": PASSWORD, "csrfmiddlewaretoken": token}).encode()
    opener.open(urllib.request.Request(f"{base}/login/", data=data, headers={"Referer": f"{base}/login/"}))
    cookies = {cookie.name: cookie.value for cookie in jar}
    if "sessionid" not in cookies:
        raise RuntimeError("login failed")
    return f"sessionid={cookies['sessionid']}; csrftoken={cookies.get('csrftoken', '')}"


def measure_wrk(url: str, cookie: str, *, users: int, duration: int) -> dict[str, float]:
    command = ["wrk", f"-t{min(users, 2)}", f"-c{users}", f"-d{duration}s", "--timeout", "10s", "-s", str(WRK_SCRIPT), "-H", f"Cookie: {cookie}", url]
    output = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    line = next(line for line in output.splitlines() if line.startswith("QUEUE_BENCH"))
    return {key: float(value) for key, value in (part.split("=") for part in line.split()[1:])}


def measure_python(url: str, cookie: str, *, users: int, duration: int) -> dict[str, float]:
    """The same closed loop as wrk, from Python threads (when wrk is not installed)."""
    parts = urllib.parse.urlsplit(url)
    path = parts.path + (f"?{parts.query}" if parts.query else "")
    latencies: list[float] = []
    errors = [0]
    deadline = time.monotonic() + duration

    def user() -> None:
        conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
        while time.monotonic() < deadline:
            started = time.perf_counter()
            try:
                conn.request("GET", path, headers={"Cookie": cookie})
                response = conn.getresponse()
                response.read()
                status = response.status
            except OSError:  # a timeout or a refused connection counts as an error, not a lost user
                conn.close()
                conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
                status = 0
            latencies.append(time.perf_counter() - started)
            if status != 200:
                errors[0] += 1

    threads = [threading.Thread(target=user) for _ in range(users)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    ordered = sorted(latencies)

    def pct(p: float) -> float:
        return 1000 * ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]

    return {"p50_ms": pct(50), "p95_ms": pct(95), "p99_ms": pct(99), "requests": len(ordered), "rps": len(ordered) / duration, "non2xx": errors[0]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--claims", type=int, default=200_000)
    parser.add_argument("--articles", type=int, default=4000)
    parser.add_argument("--outlets", type=int, default=300)
    parser.add_argument("--shape", choices=["spread", "syndicated"], default="spread", help="the data's shape (see above)")
    parser.add_argument("--workers", type=int, default=3, help="gunicorn worker processes")
    parser.add_argument("--threads", type=int, default=1, help="threads per gunicorn worker (gthread when > 1)")
    parser.add_argument("--users", type=int, default=10, help="concurrent users (connections)")
    parser.add_argument("--duration", type=int, default=15, help="seconds per page")
    parser.add_argument("--only", action="append", default=[], help="measure only the pages whose name holds this text (repeatable: any of them)")
    parser.add_argument("--reuse", action="store_true", help="keep the bench database of the last run instead of refilling it")
    args = parser.parse_args()

    database_url = os.environ.get("DATABASE_URL", "")
    if args.reuse:
        head, _, name = database_url.rpartition("/")
        name, _, query = name.partition("?")
        bench_url = f"{head}/{name}_queue_bench" + (f"?{query}" if query else "")
        setup_django(bench_url)
        from factcheck.claims.models import Claim

        cursor = middle_cursor(Claim.objects.count())
        username = "bench-reviewer"
    else:
        bench_url = bench_database_url("queue_bench")
        setup_django(bench_url)
        from django.core.management import call_command

        call_command("migrate", verbosity=0)
        username, cursor = fill(claims=args.claims, articles=args.articles, outlets=args.outlets, syndicated=args.shape == "syndicated")
        refresh_cost()
    from django.db import connections

    connections.close_all()

    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env = {
        **os.environ, "DATABASE_URL": bench_url, "DJANGO_DEBUG": "0", "DJANGO_SECRET_KEY": secrets.token_urlsafe(40),
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost", "LOG_LEVEL": "WARNING",
        # The API's pages are measured as fast as they answer, not at a client's allowed rate.
        "FACTCHECK_API_RATE_USER": "1000000/minute",
    }
    gunicorn = [
        sys.executable, "-m", "gunicorn", "factcheck.wsgi", "--bind", f"127.0.0.1:{port}", "--workers", str(args.workers),
        "--threads", str(args.threads), "--worker-class", "gthread" if args.threads > 1 else "sync", "--log-level", "warning",
    ]
    server = subprocess.Popen(gunicorn, cwd=ROOT, env=env)
    try:
        wait_until_serving(port, server)
        cookie = log_in(base, username)
        pages = {
            "first page": f"{base}/claims/",
            "filtered (status=new, type=numeric, with a number)": f"{base}/claims/?status=new&type=numeric&has_number=yes",
            "deep keyset page (half way)": f"{base}/claims/?after={cursor}",
            "search (q=deported boston)": f"{base}/claims/?q=deported+boston",
            # Both words are common, never in that order: the phrase must be told apart from the words.
            'search for a quoted phrase (q="deported boston")': f"{base}/claims/?q=%22deported+boston%22",
            "search, a common word (q=boston, 40,000 claims)": f"{base}/claims/?q=boston",
            "search in the whole article (q=council: every article)": f"{base}/claims/?q=council&in_article=yes",
            # The "N claims" line, asked for by each page once it shows its rows.
            "count, unfiltered": f"{base}/claims/count/",
            "count, filtered as above": f"{base}/claims/count/?status=new&type=numeric&has_number=yes",
            "count, search (q=boston)": f"{base}/claims/count/?q=boston",
            "article metadata (meta=category:politics)": f"{base}/claims/?meta=category%3Apolitics",
            "metadata and status (category:tech, status=check)": f"{base}/claims/?meta=category%3Atech&status=check",
            "article title (article_title=housing plan)": f"{base}/claims/?article_title=housing+plan",
            "one article by title (article_title=part 1234)": f"{base}/claims/?article_title=part+1234",
            # The API's list: every matching appearance a row, in the same order.
            "API list, first page": f"{base}/api/v1/claims/",
            "API list, deep keyset page (half way)": f"{base}/api/v1/claims/?cursor={cursor}",
            "API list, filtered as above": f"{base}/api/v1/claims/?status=new&type=numeric&has_number=yes",
            "API list, search (q=deported boston)": f"{base}/api/v1/claims/?q=deported+boston",
            "API list, one claim (limit 1)": f"{base}/api/v1/claims/?page_size=1",
        }
        if args.only:
            pages = {name: url for name, url in pages.items() if any(text in name for text in args.only)}
        use_wrk = shutil.which("wrk") is not None
        measure = measure_wrk if use_wrk else measure_python
        print(f"load: {'wrk' if use_wrk else 'Python threads (wrk not installed)'}, {args.users} concurrent users, {args.duration}s per page; "
              f"gunicorn {args.workers} workers x {args.threads} threads; {os.cpu_count()} cores")
        failed = False
        for name, url in pages.items():
            measure(url, cookie, users=args.users, duration=3)  # warm-up: connections, caches
            # What each request cost the machine's two sides, to tell where a page's time goes
            # under load (CPU caches and contention make it more than one request alone costs).
            workers_before, backends_before = cpu_seconds(children_of(server.pid)), cpu_seconds(backend_pids())
            figures = measure(url, cookie, users=args.users, duration=args.duration)
            requests = max(figures["rps"] * args.duration, 1)
            python_ms = 1000 * cpu_since(workers_before, children_of(server.pid)) / requests
            backends = backend_pids()
            postgres_ms = 1000 * cpu_since(backends_before, backends) / requests
            ok = figures["p95_ms"] < TARGET_P95_MS and figures["non2xx"] == 0
            failed |= not ok
            print(f"  {name:52s} median {figures['p50_ms']:6.1f} ms  p95 {figures['p95_ms']:6.1f} ms  p99 {figures['p99_ms']:6.1f} ms  "
                  f"{figures['rps']:6.1f} req/s  non-200 {figures['non2xx']:.0f}  {'ok' if ok else 'OVER TARGET'}"
                  f"  CPU a request: gunicorn {python_ms:4.1f} ms" + (f", PostgreSQL {postgres_ms:4.1f} ms" if backends else ""))
        print(f"target: p95 < {TARGET_P95_MS:.0f} ms on every page: {'met' if not failed else 'NOT met'}")
    finally:
        server.terminate()
        server.wait(timeout=30)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
