/** SPEC section 16: alerts as work items, reading them (GET /alerts, its filters and paging, alertPeriods), on both stores. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ManualClock } from '../../../src/domain/clock.js';
import { cleanupStores, storeTargets } from '../../helpers/databases.js';
import { dataOf, type SignedInUser } from '../../helpers/graphql-users.js';
import { RestClient } from '../../helpers/rest-client.js';
import type { TestApp } from '../../helpers/test-app.js';
import { closeMqttClients } from '../../helpers/uplinks.js';
import { minute } from '../../domain/alerts/alert-test-helpers.js';
import { listAlerts, start, startAlertWork, type Period } from './alert-work-helpers.js';

after(cleanupStores);
after(closeMqttClients);

for (const target of storeTargets) {
  describe(`alerts as work items, listed, on ${target.name}`, { skip: target.skip }, () => {
    const clock = new ManualClock(start);
    let server: TestApp;
    let viewer: SignedInUser;
    // A fresh client per call: tokens expire after 15 minutes of the manual clock.
    const rest = () => new RestClient(server);
    const list = (query: string) => listAlerts(server, query);

    before(async () => {
      ({ server, viewer } = await startAlertWork(target, clock));
    });
    after(() => server?.stop());

    test('GET /alerts lists the periods across things, newest first, with severity, value, gateway, group and incident', async () => {
      const all = await list('');
      assert.equal(all.length, 5, JSON.stringify(all));
      const sorted = [...all].sort((a, b) => b.from_ts - a.from_ts || b.id - a.id);
      assert.deepEqual(all, sorted, 'newest first');
      const battery = all.find((p) => p.alert_type === 'battery low')!;
      assert.deepEqual(
        { ...battery, id: undefined, from: undefined, from_ts: undefined },
        {
          id: undefined,
          tuid: 'B-1',
          alert_type: 'battery low',
          severity: 'warning',
          rule_id: null,
          value: 5,
          from: undefined,
          to: null,
          from_ts: undefined,
          to_ts: null,
          gateway_tuid: 'GW-B',
          group_id: 'unassigned',
          incident_id: null,
          acknowledged: null,
        },
      );
      const lost = all.filter((p) => p.alert_type === 'gateway connection lost');
      assert.deepEqual(lost.map((p) => p.tuid).sort(), ['A-1', 'A-2', 'A-3', 'B-1']);
      for (const period of lost) {
        assert.equal(period.severity, 'critical');
        assert.equal(period.value, null);
        assert.equal(period.rule_id, null);
        assert.equal(period.to, null);
        assert.equal(period.from_ts, Math.floor((Date.UTC(2026, 0, 10, 8, 0, 0) + 10 * minute) / 1000));
      }
      assert.equal(lost.find((p) => p.tuid === 'A-1')!.group_id, 'north', 'the group when the period opened');
      const incidents = new Set(lost.filter((p) => p.gateway_tuid === 'GW-A').map((p) => p.incident_id));
      assert.equal(incidents.size, 1, 'one gateway silence is one incident');
      assert.ok([...incidents][0]);
      assert.notEqual(lost.find((p) => p.tuid === 'B-1')!.incident_id, [...incidents][0], 'another gateway, another incident');
    });

    test('filters: state, alert_type, severity, group_id, tuid, gateway_tuid, incident_id, acknowledged, from/to', async () => {
      const incident = (await list('?gateway_tuid=GW-A'))[0]!.incident_id!;
      assert.equal((await list(`?incident_id=${encodeURIComponent(incident)}`)).length, 3);
      assert.equal((await list('?gateway_tuid=GW-A')).length, 3);
      assert.equal((await list('?state=open')).length, 5);
      assert.equal((await list('?state=closed')).length, 0);
      assert.deepEqual(
        (await list('?severity=warning')).map((p) => p.tuid),
        ['B-1'],
      );
      assert.deepEqual(
        (await list('?alert_type=battery%20low')).map((p) => p.tuid),
        ['B-1'],
      );
      assert.deepEqual(
        (await list('?group_id=north')).map((p) => p.tuid),
        ['A-1'],
      );
      assert.equal((await list('?group_id=unassigned')).length, 4);
      assert.equal((await list('?tuid=B-1')).length, 2);
      assert.equal((await list('?acknowledged=true')).length, 0);
      const s = (ms: number) => Math.floor(ms / 1000);
      assert.equal((await list(`?to=${s(Date.UTC(2026, 0, 10, 7))}`)).length, 0, 'nothing opened before the window ends');
      assert.equal((await list(`?from=${s(clock.now())}`)).length, 5, 'open periods overlap every later window');
      for (const [query, field] of [
        ['?state=pending', 'state'],
        ['?severity=fatal', 'severity'],
        ['?limit=0', 'limit'],
        ['?limit=1001', 'limit'],
        ['?cursor=bm9wZQ', 'cursor'],
        ['?from=20&to=10', 'from'],
        ['?tuid=has%20space', 'tuid'],
        ['?gateway_tuid=a%2Fb', 'gateway_tuid'],
        ['?group_id=a%2Fb', 'group_id'],
        ['?acknowledged=maybe', 'acknowledged'],
      ] as const) {
        const response = await rest().get(`/alerts${query}`);
        assert.equal(response.status, 400, `${query}: ${response.text}`);
        assert.deepEqual(
          response.body.errors.map((e: { field: string }) => e.field),
          [field],
          query,
        );
      }
    });

    test('cursor paging walks every period once, keeping the filter', async () => {
      const all = await list('');
      const seen: number[] = [];
      let cursor: string | null = null;
      do {
        const page: { status: number; body: { data: { alerts: Period[]; next_cursor: string | null } } } = await rest().get(
          `/alerts?limit=2${cursor ? `&cursor=${cursor}` : ''}`,
        );
        assert.equal(page.status, 200);
        assert.ok(page.body.data.alerts.length <= 2);
        seen.push(...page.body.data.alerts.map((p) => p.id));
        cursor = page.body.data.next_cursor;
      } while (cursor !== null);
      assert.deepEqual(
        seen,
        all.map((p) => p.id),
      );
      // state=open reads the partial index of open periods (named on SQLite): its pages give the same periods.
      const open = await list('?state=open');
      assert.ok(open.length >= 2, 'the fixture has open periods to page through');
      const seenOpen: number[] = [];
      cursor = null;
      do {
        const page: { status: number; body: { data: { alerts: Period[]; next_cursor: string | null } } } = await rest().get(
          `/alerts?state=open&limit=1${cursor ? `&cursor=${cursor}` : ''}`,
        );
        assert.equal(page.status, 200);
        seenOpen.push(...page.body.data.alerts.map((p) => p.id));
        cursor = page.body.data.next_cursor;
      } while (cursor !== null);
      assert.deepEqual(
        seenOpen,
        open.map((p) => p.id),
      );
      const gql = dataOf(
        await viewer.client.request(
          '{ alertPeriods(gatewayTuid: "GW-A", first: 2) { nodes { id tuid severity incidentId groupId } pageInfo { hasNextPage endCursor } } }',
        ),
      );
      assert.equal(gql.alertPeriods.nodes.length, 2);
      assert.equal(gql.alertPeriods.pageInfo.hasNextPage, true);
      const rest2 = dataOf(
        await viewer.client.request(
          'query ($after: String) { alertPeriods(gatewayTuid: "GW-A", first: 2, after: $after) { nodes { id } pageInfo { hasNextPage } } }',
          {
            after: gql.alertPeriods.pageInfo.endCursor,
          },
        ),
      );
      assert.equal(rest2.alertPeriods.nodes.length, 1);
      assert.equal(rest2.alertPeriods.pageInfo.hasNextPage, false);
    });
  });
}
