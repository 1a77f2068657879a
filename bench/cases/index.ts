/**
 * Every case of `npm run bench`, in the order they run. A case is a
 * `BenchCase`; to add one, write it (with its own `ServerLauncher` when it
 * loads another deployment, as the cluster case does) and list it here.
 */
import type { BenchCase } from '../context.js';
import { apiSearchesCase } from './api-searches.js';
import { clusterCase } from './cluster.js';
import { defendedSitesCase } from './defended-sites.js';
import { engineOverheadCase } from './engine-overhead.js';
import { growthCase } from './growth.js';
import { machineCeilingCase } from './machine-ceiling.js';
import { oneSearchCase } from './one-search.js';
import { pollingLoadCase } from './polling-load.js';
import { profileExtractionCase } from './profile-extraction.js';
import { storeSizeCase } from './store-size.js';
import { strictSitesCase } from './strict-sites.js';
import { sustainedLoadCase } from './sustained-load.js';

export const CASES: readonly BenchCase[] = [
  oneSearchCase,
  engineOverheadCase,
  apiSearchesCase,
  growthCase,
  pollingLoadCase,
  clusterCase,
  machineCeilingCase,
  sustainedLoadCase,
  storeSizeCase,
  profileExtractionCase,
  strictSitesCase,
  defendedSitesCase,
];
