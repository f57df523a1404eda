export { describeStoreContract } from './describe-store-contract.ts';
export type { FeedOptions, MakeStoreSubject, StoreSubject, SubjectContext } from './subject.ts';
export { ManualClock, T0, fakeSealer } from './fixtures.ts';
