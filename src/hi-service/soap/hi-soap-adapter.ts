// The HiServicePort over SOAP: builds the message, sends it, maps the answer.
import type { HiServicePort } from '../hi-service-port.ts';
import { HiServiceUnreachableError } from '../hi-service-port.ts';
import type { SoapHiSettings } from './hi-soap-settings.ts';

export function createSoapHiService(settings: SoapHiSettings): HiServicePort {
  void settings;
  const notReady = async (): Promise<never> => {
    throw new HiServiceUnreachableError('HI Service SOAP adapter is not complete yet');
  };
  return { searchIhi: notReady, verifyProvider: notReady };
}
