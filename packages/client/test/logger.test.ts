/** The default ServiceLogger adapter: named after ServiceClient. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { defaultLogger } from '../src/index.ts';

afterEach(() => vi.restoreAllMocks());

describe('defaultLogger()', () => {
  it('writes info and error with the ServiceClient name, error with its cause', () => {
    const info = vi.spyOn(console, 'info').mockImplementation(() => {});
    const error = vi.spyOn(console, 'error').mockImplementation(() => {});
    const logger = defaultLogger();
    logger.info('stream connected');
    const cause = new Error('boom');
    logger.error('sync failed', cause);
    logger.error('no cause');
    expect(info).toHaveBeenCalledWith('[ServiceClient] stream connected');
    expect(error).toHaveBeenNthCalledWith(1, '[ServiceClient] sync failed', cause);
    expect(error).toHaveBeenNthCalledWith(2, '[ServiceClient] no cause');
  });

  it('sends debug through util.debuglog (silent unless NODE_DEBUG names it)', () => {
    const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const info = vi.spyOn(console, 'info').mockImplementation(() => {});
    defaultLogger().debug('sync: revision 3');
    expect(err).not.toHaveBeenCalled();
    expect(info).not.toHaveBeenCalled();
  });
});
