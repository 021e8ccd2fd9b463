/**
 * Where the end-to-end rows' rounds spent their time, read from the
 * provider's `/metrics` after the runs: the mean wait of an attempt for the
 * operator's answer, against the mean delivery of an item from its
 * enqueueing (the round's write) to its final answer. The difference is
 * the provider's own: its commit and sync, the claim, and the wait for its
 * one thread. Pure: parses the text it is given.
 */
import { ANSWER_METRIC, DELIVERY_METRIC } from '../src/dispatch/metrics.js';

export interface DeliveryTimes {
  answers: number;
  answerMeanMs: number;
  deliveries: number;
  deliveryMeanMs: number;
}

/** Sum and count of a histogram over all its label sets. */
function totals(metricsText: string, metric: string): { sum: number; count: number } {
  const sumOf = (series: string) =>
    [...metricsText.matchAll(new RegExp(`^${metric}_${series}(?:\\{[^}]*\\})? (\\S+)$`, 'gm'))].reduce((total, match) => total + Number(match[1]), 0);
  return { sum: sumOf('sum'), count: sumOf('count') };
}

/** Undefined when nothing was delivered (or the text has no such histograms). */
export function deliveryTimes(metricsText: string): DeliveryTimes | undefined {
  const answers = totals(metricsText, ANSWER_METRIC);
  const deliveries = totals(metricsText, DELIVERY_METRIC);
  if (answers.count === 0 || deliveries.count === 0) return undefined;
  return {
    answers: answers.count,
    answerMeanMs: (answers.sum / answers.count) * 1000,
    deliveries: deliveries.count,
    deliveryMeanMs: (deliveries.sum / deliveries.count) * 1000,
  };
}
