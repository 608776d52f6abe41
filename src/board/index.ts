/**
 * Entry of the board bundle (dist/board.js), loaded only by `tasks board`:
 * the web server, its pages and markdown-it. It calls the app layer through
 * the engine bundle it is handed, never git.
 */
export {startBoard, type BoardOptions, type RunningBoard} from './server'
