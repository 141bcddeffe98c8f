/**
 * How well an evidence score tells answerable questions from questions the knowledge does not answer,
 * and where to draw the low-evidence line. Used by `kb eval` to report, and by whoever calibrates
 * `lowEvidenceScore` for a knowledge base: fit on a development set, report on a held-out one.
 */

/** One question's evidence strength and whether the knowledge answers it. */
export interface ScoredQuestion {
  /** Higher means stronger evidence; `Infinity` for an exact identifier match. */
  strength: number;
  answerable: boolean;
}

/**
 * The area under the ROC curve: the chance that a random answerable question gets a higher strength
 * than a random unanswerable one (ties count half). 0.5 is chance, 1 is a perfect split. Null when
 * either class is empty.
 */
export function rocAuc(questions: readonly ScoredQuestion[]): number | null {
  const positives = questions.filter((question) => question.answerable).map((question) => question.strength);
  const negatives = questions.filter((question) => !question.answerable).map((question) => question.strength);
  if (positives.length === 0 || negatives.length === 0) return null;
  let wins = 0;
  for (const positive of positives) {
    for (const negative of negatives) wins += positive > negative ? 1 : positive === negative ? 0.5 : 0;
  }
  return wins / (positives.length * negatives.length);
}

export interface ThresholdFit {
  /** Flag low evidence below this strength. */
  threshold: number;
  /** Unanswerable questions flagged (what the flag is for) and answerable ones flagged (its cost). */
  flaggedUnanswerable: number;
  flaggedAnswerable: number;
}

/**
 * A wrong "I could not find that" on a question the shop does answer costs more than a guess it
 * avoids, so the fit caps it: by default at 5% of the answerable questions.
 */
export const DEFAULT_MAX_FALSE_FLAG_SHARE = 0.05;

/**
 * The threshold that flags the most unanswerable questions while flagging at most
 * `maxFalseFlagShare` of the answerable ones, placed between two observed strengths so it does not
 * sit on one question; the lower of equals. Null when either class is empty.
 */
export function fitThreshold(
  questions: readonly ScoredQuestion[],
  maxFalseFlagShare = DEFAULT_MAX_FALSE_FLAG_SHARE,
): ThresholdFit | null {
  const answerable = questions.filter((question) => question.answerable).length;
  if (answerable === 0 || answerable === questions.length) return null;
  const finite = [...new Set(questions.map((question) => question.strength).filter(Number.isFinite))].sort(
    (left, right) => left - right,
  );
  let best = confusionAt(questions, finite[0] ?? 0);
  for (const [index, value] of finite.entries()) {
    const next = finite[index + 1];
    const fit = confusionAt(questions, next === undefined ? value + 1 : (value + next) / 2);
    if (fit.flaggedAnswerable > maxFalseFlagShare * answerable) break;
    if (fit.flaggedUnanswerable > best.flaggedUnanswerable) best = fit;
  }
  return best;
}

/** What a threshold flags on a set of questions. */
export function confusionAt(questions: readonly ScoredQuestion[], threshold: number): ThresholdFit {
  let flaggedUnanswerable = 0;
  let flaggedAnswerable = 0;
  for (const question of questions) {
    if (question.strength >= threshold) continue;
    if (question.answerable) flaggedAnswerable += 1;
    else flaggedUnanswerable += 1;
  }
  return { threshold, flaggedUnanswerable, flaggedAnswerable };
}
