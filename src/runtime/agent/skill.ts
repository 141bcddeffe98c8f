/**
 * A skill is a Markdown handbook the agent loads with `load_skill` before a kind of task (e.g. how to
 * change an order by its status). Loading one can unlock the tools it explains.
 */
export interface Skill {
  /** The id the model passes to `load_skill`, e.g. `order-change`. */
  name: string;
  /** What a person reads, e.g. 订单变更手册. */
  title: string;
  /** One line the model reads to decide when to load it. */
  description: string;
  /** The handbook itself. */
  body: string;
  /** Tool names this skill makes visible to the model. */
  unlocksTools: string[];
}
