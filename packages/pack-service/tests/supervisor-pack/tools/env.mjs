// Reports the variables the child's process sees, to check the supervisor's environment.
export default async function env() {
  return { names: Object.keys(process.env).sort() };
}
