/**
 * How the overview names and colours the platform's battery buckets (GroupHealth.battery; the bucket bounds are the
 * server's). A bucket the studio does not know yet is still shown, under its own name and a neutral colour.
 */
const known: Record<string, { label: string; tone: string }> = {
  unknown: { label: 'no level reported', tone: 'unknown' },
  '0-14': { label: '0–14 %', tone: 'critical' },
  '15-29': { label: '15–29 %', tone: 'low' },
  '30-49': { label: '30–49 %', tone: 'mid' },
  '50-79': { label: '50–79 %', tone: 'good' },
  '80-100': { label: '80–100 %', tone: 'full' },
};

export function bucketLabel(bucket: string): string {
  return known[bucket]?.label ?? bucket;
}

export function bucketTone(bucket: string): string {
  return known[bucket]?.tone ?? 'unknown';
}
