import { h, mount } from "./ui.js";
export async function playerPage(app) { mount(app, h("p", {}, "todo")); }
export const gamePage = playerPage; export const leaderboardsPage = playerPage;
