// Lambda for the reference-data family: wires its route to its operation.
import { httpHandler } from '../../shared/http/pipeline';
import { countryStateCity } from './operations';

export const handler = httpHandler('reference-data', { countryStateCity });
