export * from './open-database.ts';
