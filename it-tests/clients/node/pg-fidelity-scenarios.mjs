// node-postgres (pg): what a driver is told about its connection, and a connection ended before it started.
// See scenario-main.mjs for the calling convention.
import pg from 'pg';
import { main, collector, withTimeout } from './scenario-main.mjs';
import { withPgClient as withClient } from './connections.mjs';

const scenarios = {
  // The pid in BackendKeyData (client.processID) is the backend's: pg_backend_pid(), pg_stat_activity and the
  // pid in a NotificationResponse agree with it.
  async backendPid(url) {
    return withClient(url, async (listener) => withClient(url, async (notifier) => {
      const received = collector(1);
      listener.on('notification', (n) => received.push(n));
      await listener.query('LISTEN pgward_pid_channel');
      const own = (await notifier.query('SELECT pg_backend_pid() AS pid')).rows[0].pid;
      const activity = await listener.query(
        'SELECT count(*)::int AS n FROM pg_stat_activity WHERE pid = $1 AND datname = current_database()',
        [notifier.processID]);
      await notifier.query("NOTIFY pgward_pid_channel, 'from the notifier'");
      const [notification] = await withTimeout(received.promise, 10_000, 'waiting for the notification');
      await listener.query('UNLISTEN *');
      return {
        toldIsPgBackendPid: notifier.processID === own,
        inPgStatActivity: activity.rows[0].n,
        notificationPidIsNotifiers: notification.processId === notifier.processID,
        listenerAndNotifierDiffer: listener.processID !== notifier.processID,
      };
    }));
  },

  // node-postgres's quick-disconnect test: connect() and end() back to back, so the driver's Terminate reaches
  // the server before its startup packet. PostgreSQL logs that and closes without a word, and connect() never
  // settles; an ErrorResponse would reject it, and node-postgres's own test (which does not catch it) dies of
  // the unhandled rejection.
  async quickDisconnect(url) {
    const heard = [];
    for (let i = 0; i < 20; i++) {
      const client = new pg.Client({ connectionString: url });
      client.on('error', (error) => heard.push(`error event: ${error.message}`));
      client.connect().then(() => heard.push('connected'), (error) => heard.push(`connect rejected: ${error.message}`));
      await client.end();
    }
    // The server has closed every connection; anything it said has arrived by now.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const afterwards = await withClient(url, async (client) => (await client.query('SELECT 1 AS one')).rows[0].one);
    return { heard, afterwards };
  },
};

await main(scenarios);
