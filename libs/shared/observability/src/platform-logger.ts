import { Injectable } from '@nestjs/common';
import { Logger } from 'nestjs-pino';

/**
 * Nest's own boot chatter: a line per module (`InstanceLoader`), per controller and route
 * (`RoutesResolver`, `RouterExplorer`), and "starting"/"started" (`NestFactory`, `NestApplication`,
 * `NestMicroservice`): about 120 lines per start, of use only when debugging the wiring.
 */
const BOOT_CHATTER_CONTEXTS = new Set(['InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestFactory', 'NestApplication', 'NestMicroservice']);

/**
 * The apps' Nest logger (pino through nestjs-pino) with Nest's boot chatter at `debug` instead of
 * `info`, so the lines a start prints at `info` are the apps' own (migrations applied, keys rotated,
 * the ready line), and the ready banner is not scrolled away. Warnings and errors keep their level.
 */
@Injectable()
export class PlatformLogger extends Logger {
  override log(message: unknown, ...optionalParams: unknown[]): void {
    const context = optionalParams.at(-1);
    if (typeof context === 'string' && BOOT_CHATTER_CONTEXTS.has(context)) super.debug(message, ...optionalParams);
    else super.log(message, ...optionalParams);
  }
}
