// shutdown.mjs — SIGTERM while requests are in flight (qwen2_vl, --slots 2, TS_PORT, pid
// TS_SERVER_PID): 2 streams generating in the slots, 2 streams and 2 plain requests queued
// behind them. After the signal every request must end, none with an answer it should not have
// (no finish_reason, no 200 body): the running streams end with the error event and [DONE], the
// queued requests get their 503 (replies in progress are let finish before the connections
// close). The server's exit status and stderr are checked by server_test.sh.
import { a, client, env, runCases, waitMetrics } from './lib.mjs';

const PORT = env('TS_PORT'), PID = Number(env('TS_SERVER_PID'));
const c = await client(PORT);
const body = (stream) => ({ model: 'model', temperature: 0, ignore_eos: true, max_tokens: 3000, stream,
                            messages: [{ role: 'user', content: 'Tell me a very long story.' }] });

// A request to its end: how it ended ('finished', 'error-event', 'closed', 'status <n>').
function start(stream) {
    const st = { chunks: 0, outcome: null };
    let first;
    st.first = new Promise((r) => (first = r));
    st.done = (async () => {
        try {
            const res = await c.chat.completions.create(body(stream));
            if (!stream) return (st.outcome = 'answered');
            for await (const ch of res) {
                st.chunks++;
                first();
                if (ch.choices[0]?.finish_reason) st.outcome = 'finished';
            }
            st.outcome ??= 'ended without finish';
        } catch (e) {
            // The client raises an error event inside a stream as an APIError without status.
            st.outcome = e.status ? `status ${e.status}` : /shutting down/.test(e.message) ? 'error-event' : 'closed';
            st.error = e.message;
        } finally {
            first();
        }
    })();
    return st;
}

await runCases('shutdown.mjs', [
    ['SIGTERM with 2 running and 4 queued requests', async () => {
        const running = [start(true), start(true)];
        await Promise.all(running.map((s) => s.first));
        const queued = [start(true), start(true), start(false), start(false)];
        // Until all 4 have reached the queue (on a loaded machine that can take a while).
        const q = await waitMetrics(PORT, (m) => m.tessera_queue_depth === 4);
        a.equal(q.tessera_queue_depth, 4, '4 requests queued');
        a.ok(running.every((s) => s.chunks >= 1), 'the first two are generating');
        process.kill(PID, 'SIGTERM');
        const all = [...running, ...queued];
        let timer; // unref'd: it must not keep node alive once everything has ended
        const settled = await Promise.race([Promise.all(all.map((s) => s.done)).then(() => true),
                                            new Promise((r) => (timer = setTimeout(() => r(false), 60000)).unref())]);
        clearTimeout(timer);
        a.ok(settled, 'every request ended within 60 s of SIGTERM');
        const outcomes = all.map((s) => s.outcome);
        console.log(`  outcomes: ${outcomes.join(', ')}`);
        for (const s of running) a.equal(s.outcome, 'error-event', `running: ${s.outcome} ${s.error ?? ''}`);
        for (const s of queued) a.equal(s.outcome, 'status 503', `queued: ${s.outcome} ${s.error ?? ''}`);
    }],
]);
