import { messageDefinitions } from '../../../catalog/index.js';

/** The message catalog of seed 002, served from its one definition. */
export const catalogResolvers = {
  Query: {
    catalog: () => messageDefinitions,
  },
};
