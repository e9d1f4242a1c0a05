import type { PinoLogger } from 'nestjs-pino';
import { describe, expect, it, vi } from 'vitest';
import { defaultLogFormat } from './log-output';
import { PlatformLogger } from './platform-logger';

/** A PlatformLogger over a pino logger whose level methods are spies. */
function loggerWithSpies() {
  const pino = { info: vi.fn(), debug: vi.fn(), warn: vi.fn(), error: vi.fn() };
  const logger = new PlatformLogger(pino as unknown as PinoLogger, {});
  return { logger, pino };
}

describe('PlatformLogger', () => {
  it("writes Nest's route, module and start lines at debug", () => {
    const { logger, pino } = loggerWithSpies();
    logger.log('Mapped {/health/ready, GET} route', 'RouterExplorer');
    logger.log('AppModule dependencies initialized', 'InstanceLoader');
    logger.log('Nest application successfully started', 'NestApplication');
    expect(pino.info).not.toHaveBeenCalled();
    expect(pino.debug).toHaveBeenCalledTimes(3);
    expect(pino.debug).toHaveBeenCalledWith({ context: 'RouterExplorer' }, 'Mapped {/health/ready, GET} route');
  });

  it("keeps the apps' own lines at info, and Nest's warnings and errors at their level", () => {
    const { logger, pino } = loggerWithSpies();
    logger.log('applied migrations: CreateCatalog', 'Persistence:tool-executor');
    logger.log('ready on http://127.0.0.1:3000');
    logger.error('listen EADDRINUSE', 'NestApplication');
    expect(pino.info).toHaveBeenCalledTimes(2);
    expect(pino.debug).not.toHaveBeenCalled();
    expect(pino.error).toHaveBeenCalledWith({ context: 'NestApplication' }, 'listen EADDRINUSE');
  });
});

describe('defaultLogFormat', () => {
  it('is pretty for a terminal and JSON for anything else', () => {
    expect(defaultLogFormat(true)).toBe('pretty');
    expect(defaultLogFormat(false)).toBe('json');
  });
});
