/**
 * The 50 flags of the sync benches as Unleash's client features (`GET /api/client/features`),
 * for Unleash Edge's offline mode: each enabled or not, with a 100 % flexible rollout strategy,
 * as an Unleash server would hand them out.
 */
export function unleashFeatures(count = 50): unknown {
  return {
    version: 2,
    features: Array.from({ length: count }, (_, i) => ({
      name: `feature.flag_${i}`,
      type: 'release',
      description: `flag number ${i}`,
      project: 'default',
      enabled: i % 2 === 0,
      stale: false,
      impressionData: false,
      strategies: [
        {
          name: 'flexibleRollout',
          constraints: [],
          parameters: { groupId: `feature.flag_${i}`, rollout: '100', stickiness: 'default' },
          variants: [],
        },
      ],
      variants: [],
    })),
    query: { environment: 'development', inlineSegmentConstraints: true },
    segments: [],
  };
}
